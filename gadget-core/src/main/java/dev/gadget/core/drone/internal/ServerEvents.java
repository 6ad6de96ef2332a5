package dev.gadget.core.drone.internal;

import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every event the server sends a drone and who handles it: the one place to add a handler. A
 * handler given bad input (an {@link IllegalArgumentException} or a {@link WorkspaceException})
 * is answered with an error instead of silence.
 */
public final class ServerEvents {
  private static final Logger log = LoggerFactory.getLogger(ServerEvents.class);

  private final JobRunner jobs;
  private final CrashRecovery recovery;
  private final DroneWorkspace workspace;

  /** The handlers of a drone's parts. */
  public ServerEvents(JobRunner jobs, CrashRecovery recovery, DroneWorkspace workspace) {
    this.jobs = Objects.requireNonNull(jobs, "jobs");
    this.recovery = Objects.requireNonNull(recovery, "recovery");
    this.workspace = Objects.requireNonNull(workspace, "workspace");
  }

  /** Registers every handler on the drone's connection. */
  void register(Connection c) {
    on(c, Protocol.PROCESS_WORK_ORDER, jobs::onProcessWorkOrder);
    on(c, Protocol.CANCEL_WORK_ORDER, jobs::onCancel);
    on(c, Protocol.CRASH_RECOVERY_RESPONSE, recovery::onResponse);
    on(c, Protocol.REQUEST_SESSION_LOCK, workspace::onSessionLock);
    on(c, Protocol.REQUEST_WORKSPACE_MODE, jobs::onWorkspaceMode);
  }

  private static void on(Connection c, String event, EventHandler handler) {
    c.on(event, guarded(event, handler));
  }

  /** A handler whose bad input is answered with an error instead of silence. */
  private static EventHandler guarded(String event, EventHandler handler) {
    return (args, ack) -> {
      try {
        handler.handle(args, ack);
      } catch (IllegalArgumentException | WorkspaceException e) {
        log.warn("cannot handle '{}' from the server: {}", event, e.getMessage());
        reply(ack, Payloads.OkReply.failure(e.getMessage()));
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
