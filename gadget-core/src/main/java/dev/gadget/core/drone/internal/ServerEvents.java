package dev.gadget.core.drone.internal;

import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.protocol.PayloadException;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every event the server sends a drone and who handles it: the one place to add a handler. A
 * handler given bad input (a payload that does not fit, an {@link IllegalArgumentException} or
 * a {@link WorkspaceException}) is answered with an error instead of silence.
 */
public final class ServerEvents {
  private static final Logger log = LoggerFactory.getLogger(ServerEvents.class);

  private final JobRunner jobs;
  private final CrashRecovery recovery;
  private final DroneWorkspace workspace;
  private final GitRequests git;
  private final WorkspaceReport report;
  private final ServerLink link;
  private final AgentToolsRequests agentTools;

  /** The handlers of a drone's parts. */
  public ServerEvents(JobRunner jobs, CrashRecovery recovery, DroneWorkspace workspace,
      DroneState state, ServerLink link, DroneSkills skills, DroneToolSynthesis synthesis) {
    this.jobs = Objects.requireNonNull(jobs, "jobs");
    this.recovery = Objects.requireNonNull(recovery, "recovery");
    this.workspace = Objects.requireNonNull(workspace, "workspace");
    this.git = new GitRequests(jobs, workspace);
    this.report = new WorkspaceReport(state, workspace);
    this.link = Objects.requireNonNull(link, "link");
    this.agentTools = new AgentToolsRequests(workspace, skills, synthesis, state);
  }

  /** Registers every handler on the drone's connection. */
  void register(Connection c) {
    on(c, Protocol.PROCESS_WORK_ORDER, jobs::onProcessWorkOrder);
    on(c, Protocol.CANCEL_WORK_ORDER, jobs::onCancel);
    on(c, Protocol.CRASH_RECOVERY_RESPONSE, recovery::onResponse);
    on(c, Protocol.REQUEST_SESSION_LOCK, withProject(workspace::onSessionLock));
    on(c, Protocol.REQUEST_WORKSPACE_MODE, jobs::onWorkspaceMode);
    on(c, Protocol.UNDO_TURN, git::onUndo);
    on(c, Protocol.COMMIT_CHANGES, git::onCommit);
    on(c, Protocol.FORGET_CHECKPOINTS, git::onForget);
    on(c, Protocol.PUSH_CHANGES, git::onPush);
    on(c, Protocol.GET_WORKSPACE_STATE, report::onGetState);
    on(c, Protocol.RELEASE_SESSION_LOCK, workspace::onReleaseLock);
    on(c, Protocol.LIST_AGENT_TOOLS, agentTools::onList);
    on(c, Protocol.CHANGE_AGENT_TOOL, agentTools::onChange);
    on(c, Protocol.APPROVAL_DECIDED, jobs::onApprovalDecided);
    on(c, Protocol.RESUME_STREAM, (args, ack) -> link.replay(c,
        Protocol.payload(args, ResumePayloads.ResumeStream.class)));
  }

  /**
   * The server names the project it locks a workspace to; the page's request of the same name
   * does not, so the record leaves it optional and this is where it is required.
   */
  private static EventHandler withProject(EventHandler handler) {
    return (args, ack) -> {
      if (Protocol.payload(args, Payloads.SessionLock.class).project() == null) {
        throw PayloadException.required("project");
      }
      handler.handle(args, ack);
    };
  }

  private static void on(Connection c, String event, EventHandler handler) {
    c.on(event, guarded(event, handler));
  }

  /**
   * A handler that always answers: a payload that does not fit its record is answered with
   * {@code bad <event> payload: …} (the field and what was expected), a workspace problem with
   * its message, and a failure nobody expected with a plain sentence (its stack trace goes to
   * the log).
   */
  private static EventHandler guarded(String event, EventHandler handler) {
    return (args, ack) -> {
      try {
        handler.handle(args, ack);
      } catch (PayloadException e) {
        log.warn("bad '{}' payload from the server: {}", event, e.getMessage());
        reply(ack, Payloads.OkReply.failure("bad " + event + " payload: " + e.getMessage()));
      } catch (IllegalArgumentException | WorkspaceException e) {
        log.warn("cannot handle '{}' from the server: {}", event, e.getMessage());
        reply(ack, Payloads.OkReply.failure(e.getMessage()));
      } catch (RuntimeException e) {
        log.warn("handling '{}' from the server failed", event, e);
        reply(ack, Payloads.OkReply.failure("the drone failed to handle " + event));
      }
    };
  }

  /** Answers an event, if the server asked for an answer. */
  static void reply(Ack ack, Object payload) {
    if (ack != null) {
      ack.send(Protocol.args(payload));
    }
  }
}
