package dev.gadget.core.drone.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.AgentRun;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.drone.TurnTools;
import dev.gadget.core.drone.WorkOrderCache;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.protocol.ApprovalPayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Ack;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs work orders, one at a time: accepts one (after caching it in
 * {@code .gadget/work-order.json}), checks its project out and starts the agent loop on the
 * worker thread, streams the run through a {@link Streamer}, and cancels it on request. Also
 * switches the workspace mode, which a running turn holds at agent.
 */
public final class JobRunner {
  private static final Logger log = LoggerFactory.getLogger(JobRunner.class);

  /** Makes a turn's agent loop. */
  @FunctionalInterface
  public interface Loops {
    /** The loop for {@code order} (its provider, its settings) in {@code projectDir}. */
    AgentLoop.Builder make(WorkOrder order, Path projectDir, List<Tool> turnTools);
  }

  private final DroneState state;
  private final DroneWorkspace workspace;
  private final ServerLink link;
  private final TurnCompletion completion;
  private final Loops loops;
  private final Function<Path, TurnTools> turnTools;
  private final Clock clock;
  private final ExecutorService worker;
  /** How many turns' checkpoints a project keeps ({@code GitChanges#prune}). */
  private final int keptCheckpoints;

  /**
   * Runs turns on {@code worker} with the loop {@code loops} makes for a work order's provider
   * and project
   * and the tools {@code turnTools} (nullable) makes for its project, closed when the turn ends;
   * each project keeps the checkpoints of {@code keptCheckpoints} turns (and every turn's still
   * to undo or commit).
   */
  public JobRunner(DroneState state, DroneWorkspace workspace, ServerLink link,
      TurnCompletion completion, Loops loops,
      Function<Path, TurnTools> turnTools, Clock clock, ExecutorService worker,
      int keptCheckpoints) {
    this.keptCheckpoints = keptCheckpoints;
    this.state = Objects.requireNonNull(state, "state");
    this.workspace = Objects.requireNonNull(workspace, "workspace");
    this.link = Objects.requireNonNull(link, "link");
    this.completion = Objects.requireNonNull(completion, "completion");
    this.loops = Objects.requireNonNull(loops, "loops");
    this.turnTools = turnTools;
    this.clock = Objects.requireNonNull(clock, "clock");
    this.worker = Objects.requireNonNull(worker, "worker");
  }

  /** Accepts a work order unless busy or in user mode, then runs it. */
  void onProcessWorkOrder(List<JsonNode> args, Ack ack) {
    Payloads.ProcessWorkOrder p;
    try {
      p = Protocol.payload(args, Payloads.ProcessWorkOrder.class);
    } catch (IllegalArgumentException e) {
      ServerEvents.reply(ack, new Payloads.WorkOrderAck(false, e.getMessage()));
      return;
    }
    WorkOrder order = p.workOrder();
    if (order.workspaceId() != null && !order.workspaceId().equals(workspace.id())) {
      ServerEvents.reply(ack, new Payloads.WorkOrderAck(false, "this work order is for workspace "
          + order.workspaceId() + ", not this drone's " + workspace.id()));
      return;
    }
    synchronized (state) {
      Job job = state.job;
      if (job != null && !job.finished) {
        ServerEvents.reply(ack, new Payloads.WorkOrderAck(false, job.pendingRecovery
            ? "busy: recovering turn " + job.turnId : "busy: running turn " + job.turnId));
        return;
      }
      if (state.stopMessage != null) {
        ServerEvents.reply(ack, new Payloads.WorkOrderAck(false, "the drone is stopping"));
        return;
      }
      if (state.mode == WorkspaceMode.USER) {
        ServerEvents.reply(ack, new Payloads.WorkOrderAck(false, "the workspace is in user mode"));
        return;
      }
      if (state.gitChanges > 0) {
        ServerEvents.reply(ack, new Payloads.WorkOrderAck(false, "busy: the drone is undoing or "
            + "committing changes in this workspace; send the prompt again once that is done"));
        return;
      }
      WorkOrderCache cache = WorkOrderCache.of(order, clock.instant(), p.firstSeq() - 1);
      try {
        workspace.projectDir(order.project().slug());
        workspace.writeWorkOrder(cache);
      } catch (WorkspaceException e) {
        ServerEvents.reply(ack, new Payloads.WorkOrderAck(false, e.getMessage()));
        return;
      }
      Job accepted = new Job(order.chatTurn().id(), p.firstSeq());
      // Set with the job, so that a stop before the run begins marks this cache as stopped.
      accepted.cache = cache;
      state.job = accepted;
    }
    ServerEvents.reply(ack, new Payloads.WorkOrderAck(true, null));
    begin(order, p.firstSeq(), List.of(), List.of());
  }

  /**
   * Runs the current job's work order on the worker thread: checkout, then the loop, resumed
   * after {@code journal}'s rounds; the {@code interrupted} tool calls (with the result the model
   * reads for them) are sent first, as they were never sent.
   */
  void begin(WorkOrder order, long firstSeq, List<WorkOrderCache.Round> journal,
      List<ToolCall> interrupted) {
    Job j;
    synchronized (state) {
      j = state.job;
      if (j == null || j.finished || j.abandoned) {
        return; // stopped before it began: its end is reported (and cached) already
      }
    }
    link.emitStatus();
    synchronized (state) {
      if (j.finished || j.abandoned) {
        return;
      }
      state.mode = WorkspaceMode.AGENT;
      j.cache = WorkOrderCache.of(order, clock.instant(), firstSeq - 1);
      for (WorkOrderCache.Round round : journal) {
        j.cache = j.cache.withRound(round, firstSeq - 1);
      }
      workspace.writeWorkOrder(j.cache);
      j.heartbeat = link.startHeartbeats(j);
    }
    link.emitMode();
    worker.execute(() -> run(j, order, journal, interrupted));
  }

  private void run(Job j, WorkOrder order, List<WorkOrderCache.Round> journal,
      List<ToolCall> interrupted) {
    boolean cancelledEarly;
    synchronized (state) {
      cancelledEarly = j.cancelRequested;
      if (!cancelledEarly) {
        j.starting = Thread.currentThread();
      }
    }
    TurnTools extra = null;
    try {
      if (cancelledEarly) {
        completion.complete(j, TurnStatus.CANCELLED, TurnStats.EMPTY,
            "cancelled before the agent started");
        return;
      }
      Path projectDir = workspace.checkout(order.project());
      TurnCheckpoint checkpoint = TurnCheckpoint.take(projectDir, j.turnId, keptCheckpoints);
      extra = turnTools == null ? null : turnTools.apply(projectDir);
      AgentLoop.Builder builder =
          loops.make(order, projectDir, extra == null ? List.of() : extra.tools());
      ApprovalPolicy policy = approvalPolicy(order);
      if (policy != ApprovalPolicy.NEVER) {
        DroneApprovals approvals = new DroneApprovals(j.turnId, link, link.heartbeatInterval());
        synchronized (state) {
          j.approvals = approvals;
        }
        builder.approvals(policy, approvals);
      }
      AgentLoop loop = builder.build();
      AgentRequest request = AgentRequest.builder(projectDir, order.provider().modelId(),
              order.chatTurn().prompt())
          .projectName(order.project().name())
          .params(order.provider().params())
          .context(order.chatSession().context())
          .mode(order.chatTurn().mode())
          .chatId(order.chatSession().id())
          .resume(CrashRecovery.resumeMessages(journal))
          .build();
      AgentRun started = null;
      synchronized (state) {
        j.starting = null;
        if (j.abandoned || state.closed) {
          return;
        }
        if (!j.cancelRequested) {
          Streamer streamer = new Streamer(j, state, workspace, link, completion);
          interrupted.forEach(streamer::replay);
          j.checkpoint = checkpoint;
          j.run = loop.start(request, streamer);
          started = j.run;
        }
      }
      if (started != null) {
        TurnTools handedOver = extra;
        extra = null;
        if (handedOver != null) {
          started.outcome().whenComplete((outcome, failure) -> close(handedOver));
        }
        return;
      }
      completion.complete(j, TurnStatus.CANCELLED, TurnStats.EMPTY,
          "cancelled before the agent started");
    } catch (RuntimeException e) {
      boolean cancelled;
      synchronized (state) {
        cancelled = j.cancelRequested;
      }
      if (cancelled) {
        // The cancel interrupted the checkout.
        completion.complete(j, TurnStatus.CANCELLED, TurnStats.EMPTY,
            "cancelled before the agent started");
        return;
      }
      // Anything that keeps the loop from starting ends the turn; it never hangs.
      log.warn("turn {} cannot start: {}", j.turnId, e.getMessage());
      completion.complete(j, TurnStatus.ERROR, TurnStats.EMPTY, e.getMessage());
    } finally {
      if (extra != null) {
        close(extra);
      }
      synchronized (state) {
        j.starting = null;
        // a cancel's interrupt must not reach the next work order on this thread
        Thread.interrupted();
      }
    }
  }

  private static void close(TurnTools tools) {
    try {
      tools.close();
    } catch (RuntimeException e) {
      log.warn("closing a turn's tools failed", e);
    }
  }

  /** Cancels the running turn, also while its project is being checked out. */
  /** {@code approvalDecided}: a call of the running turn that waited was decided. */
  void onApprovalDecided(List<JsonNode> args, Ack ack) {
    ApprovalPayloads.ApprovalDecided p = DroneApprovals.read(args);
    DroneApprovals approvals;
    synchronized (state) {
      Job job = state.job;
      approvals = job != null && job.turnId.equals(p.turnId()) ? job.approvals : null;
    }
    if (approvals != null) {
      approvals.decided(p);
    }
    ServerEvents.reply(ack, Payloads.OkReply.success());
  }

  /** The work order's approval policy; one this drone does not know asks for everything. */
  private static ApprovalPolicy approvalPolicy(WorkOrder order) {
    if (order.approvalPolicy() == null) {
      return ApprovalPolicy.NEVER;
    }
    try {
      return ApprovalPolicy.fromWireName(order.approvalPolicy());
    } catch (IllegalArgumentException e) {
      log.warn("{}: every tool call waits for approval", e.getMessage());
      return ApprovalPolicy.EVERYTHING;
    }
  }

  void onCancel(List<JsonNode> args, Ack ack) {
    Payloads.CancelWorkOrder p = Protocol.payload(args, Payloads.CancelWorkOrder.class);
    boolean mine;
    synchronized (state) {
      Job job = state.job;
      mine = job != null && !job.finished && !job.pendingRecovery
          && job.turnId.equals(p.turnId());
    }
    if (mine) {
      cancel(p.turnId());
    }
    ServerEvents.reply(ack, mine ? Payloads.OkReply.success()
        : Payloads.OkReply.failure("not running turn " + p.turnId()));
  }

  /**
   * Cancels the turn this drone runs, if it is {@code turnId} (any turn when null): stops the
   * agent run, or, while the project is being checked out, git and the loop's start. The turn
   * then ends as cancelled through {@link TurnCompletion}. The job, or null when none runs.
   */
  Job cancel(String turnId) {
    AgentRun run;
    Job job;
    synchronized (state) {
      job = state.job;
      if (job == null || job.finished || job.pendingRecovery
          || (turnId != null && !job.turnId.equals(turnId))) {
        return null;
      }
      run = job.run;
      job.cancelRequested = true;
      if (run == null && job.starting != null) {
        job.starting.interrupt();
      }
    }
    if (run != null) {
      log.info("cancelling turn {}", job.turnId);
      run.cancel();
    }
    return job;
  }

  /**
   * A clean stop: accepts no more work orders, cancels the running turn so that it ends as
   * cancelled with {@code message}, and waits up to {@code timeout} for the server to
   * acknowledge that end (the work order cache is removed then). Whether the server has it, or
   * nothing ran; a turn left over from a crash (or abandoned) stays cached for the next start.
   */
  public boolean stop(String message, Duration timeout) {
    Job job;
    synchronized (state) {
      state.stopMessage = Objects.requireNonNull(message, "message");
      job = state.job;
      if (state.closed || job == null || job.pendingRecovery) {
        return true;
      }
    }
    log.info("stopping: ending turn {} as cancelled and telling the server", job.turnId);
    cancel(job.turnId);
    try {
      if (state.awaitGone(job, timeout.toNanos())) {
        return true;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.warn("the server did not acknowledge the end of turn {} within {} ms; the next start "
        + "reports it again (.gadget/work-order.json)", job.turnId, timeout.toMillis());
    return false;
  }

  /**
   * Holds work orders off for an undo or a commit (until {@link #gitChangeDone}): the running
   * turn's id when one runs (then nothing is held off), else {@code null}.
   */
  String gitChangeBegins() {
    synchronized (state) {
      Job job = state.job;
      if (job != null && !job.finished) {
        return job.turnId;
      }
      state.gitChanges++;
      return null;
    }
  }

  /** An undo or a commit {@link #gitChangeBegins} began was answered. */
  void gitChangeDone() {
    synchronized (state) {
      state.gitChanges--;
    }
  }

  /** Takes the mode {@code workspace.json} kept: user mode, if the user had taken over. */
  public void restoreMode() {
    synchronized (state) {
      state.mode = workspace.savedMode();
    }
  }

  /** Switches the workspace mode; only a work order sets agent mode, which stays while it runs. */
  void onWorkspaceMode(List<JsonNode> args, Ack ack) {
    Payloads.WorkspaceModeRequest p =
        Protocol.payload(args, Payloads.WorkspaceModeRequest.class);
    synchronized (state) {
      Job job = state.job;
      boolean running = job != null && !job.finished;
      if (running && p.mode() != WorkspaceMode.AGENT) {
        ServerEvents.reply(ack,
            Payloads.OkReply.failure("the agent is running turn " + job.turnId));
        return;
      }
      if (!running && p.mode() == WorkspaceMode.AGENT) {
        ServerEvents.reply(ack, Payloads.OkReply.failure("agent mode is set by a work order"));
        return;
      }
      if (p.mode() != WorkspaceMode.AGENT) {
        try {
          workspace.saveMode(p.mode()); // user mode survives a restart
        } catch (WorkspaceException e) {
          ServerEvents.reply(ack, Payloads.OkReply.failure(e.getMessage()));
          return;
        }
      }
      state.mode = p.mode();
    }
    ServerEvents.reply(ack, Payloads.OkReply.success());
    link.emitMode();
  }
}
