package dev.gadget.core.drone.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.drone.WorkOrderCache;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash recovery: when {@code .gadget/work-order.json} survived a crash, asks the server whether
 * to discard the turn or retry it, and retries it, resuming after the journaled tool rounds when
 * the server allows.
 */
public final class CrashRecovery {
  private static final Logger log = LoggerFactory.getLogger(CrashRecovery.class);

  private final DroneState state;
  private final DroneWorkspace workspace;
  private final ServerLink link;
  private final JobRunner jobs;
  private final TurnCompletion completion;
  private final ScheduledExecutorService timer;
  private final Clock clock;

  /**
   * Recovery that retries through {@code jobs} and reports stopped turns through completion; a
   * retry the server delays waits on {@code timer} until {@code clock} says the time has come.
   */
  public CrashRecovery(DroneState state, DroneWorkspace workspace, ServerLink link,
      JobRunner jobs, TurnCompletion completion, ScheduledExecutorService timer, Clock clock) {
    this.timer = Objects.requireNonNull(timer, "timer");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.state = Objects.requireNonNull(state, "state");
    this.workspace = Objects.requireNonNull(workspace, "workspace");
    this.link = Objects.requireNonNull(link, "link");
    this.jobs = Objects.requireNonNull(jobs, "jobs");
    this.completion = Objects.requireNonNull(completion, "completion");
  }

  /**
   * Before the first connection: a work order cached before a crash makes the drone recovering,
   * so that it registers as such and the server sends it no work until it has answered.
   */
  public void load() {
    synchronized (state) {
      if (state.job != null) {
        return;
      }
      Optional<WorkOrderCache> cached;
      try {
        cached = workspace.readWorkOrder();
      } catch (WorkspaceException e) {
        return; // ask() moves it aside and says so
      }
      cached.filter(c -> !c.ended()).ifPresent(c -> {
        state.job = new Job(c.turnId(), c.lastSeq() + 1);
        state.job.pendingRecovery = true;
      });
    }
  }

  /**
   * Asks the server what to do with a work order cached before a crash; a turn that a stopped
   * drone ended but the server did not acknowledge is no crash: its end is reported again. Asked
   * on every
   * connection while the answer is pending, and only once the handlers are registered, so the
   * answer cannot arrive unheard.
   */
  public void ask(Connection c) {
    WorkOrderCache cache;
    Job stopped = null;
    synchronized (state) {
      if (state.job != null && !state.job.pendingRecovery) {
        return;
      }
      Optional<WorkOrderCache> cached;
      try {
        cached = workspace.readWorkOrder();
      } catch (WorkspaceException e) {
        Path aside = workspace.quarantineWorkOrder();
        log.error("{}; moved it to {}", e.getMessage(), aside);
        return;
      }
      if (cached.isEmpty()) {
        return;
      }
      cache = cached.get();
      if (cache.ended()) {
        if (state.job != null) {
          return;
        }
        // Not a crash: the drone was stopped and the server missed the turn's end.
        stopped = new Job(cache.turnId(), cache.lastSeq() + 1);
        stopped.finished = true;
        state.job = stopped;
      } else if (state.job == null) {
        state.job = new Job(cache.turnId(), cache.lastSeq() + 1);
        state.job.pendingRecovery = true;
      }
    }
    if (stopped != null) {
      log.info("turn {} ended ({}) before the server acknowledged its end; telling it now",
          cache.turnId(), cache.status());
      completion.resend(stopped, new Payloads.WorkOrderComplete(cache.turnId(),
          cache.lastSeq(), cache.endStatus() == null ? TurnStatus.CANCELLED : cache.endStatus(),
          cache.stats() == null ? TurnStats.EMPTY : cache.stats(), cache.error()));
      return;
    }
    log.warn("found the work order of turn {} from before a crash; asking the server",
        cache.turnId());
    c.emit(Protocol.REQUEST_CRASH_RECOVERY, Protocol.args(new Payloads.CrashRecoveryRequest(
        workspace.id(), cache.turnId(), cache.chatSessionId(), cache.workOrderId(),
        cache.resumable().size(), cache.pending() == null)));
  }

  /** Handles the server's answer: discard the cached turn, or retry it. */
  void onResponse(List<JsonNode> args, Ack ack) {
    Payloads.CrashRecoveryResponse r = Protocol.payload(args, Payloads.CrashRecoveryResponse.class);
    WorkOrderCache cache;
    boolean retry = Payloads.CrashRecoveryResponse.RETRY.equals(r.action()) && r.retry() != null;
    synchronized (state) {
      Job job = state.job;
      if (job == null || !job.pendingRecovery || !job.turnId.equals(r.turnId())) {
        return;
      }
      cache = workspace.readWorkOrder().orElse(null);
      if (retry && cache != null) {
        if (state.stopMessage != null) {
          // Stopping: the cache stays, and the next start asks again.
          return;
        }
        state.job = new Job(r.turnId(), r.retry().firstSeq());
      } else {
        workspace.deleteWorkOrder();
        state.job = null;
      }
      state.notifyAll();
    }
    if (retry && cache != null) {
      log.info("retrying turn {} after a crash{}", r.turnId(),
          r.retry().resume() ? ", resuming after the journaled tool rounds" : "");
      boolean resume = r.retry().resume();
      List<ToolCall> interrupted = new ArrayList<>();
      if (resume && cache.pending() != null) {
        for (ToolCall c : cache.pending().unfinished()) {
          log.warn("tool {} of turn {} was running when the drone stopped; it is not run again",
              c.name(), r.turnId());
          interrupted.add(c.withFailure(WorkOrderCache.Round.INTERRUPTED));
        }
      }
      Runnable retryNow = () -> jobs.begin(r.retry().workOrder(), r.retry().firstSeq(),
          resume ? cache.resumable() : List.of(), interrupted);
      long delay = r.retryDelayMillis();
      if (delay == 0) {
        retryNow.run();
      } else {
        log.info("waiting {} ms, as the server asked, before retrying turn {}", delay,
            r.turnId());
        after(delay, retryNow);
      }
    } else {
      log.info("the server discarded turn {} from before the crash", r.turnId());
      link.emitStatus();
    }
  }

  /**
   * Runs {@code task} once the drone's clock has moved {@code delayMillis} on: checked on the
   * timer every 50 ms at most (so a test's clock decides when), never after the drone closed.
   */
  private void after(long delayMillis, Runnable task) {
    Instant due = clock.instant().plusMillis(delayMillis);
    long step = Math.max(1, Math.min(50, delayMillis));
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
    self.set(timer.scheduleAtFixedRate(() -> {
      if (done.get()) {
        return;
      }
      boolean go = !state.closed && !clock.instant().isBefore(due);
      if ((go || state.closed) && done.compareAndSet(false, true)) {
        ScheduledFuture<?> f = self.get();
        if (f != null) {
          f.cancel(false);
        }
        if (go) {
          try {
            task.run();
          } catch (RuntimeException e) {
            log.error("retrying the turn failed", e);
          }
        }
      }
    }, step, step, TimeUnit.MILLISECONDS));
  }

  /** The LLM messages of journaled rounds: each assistant reply, then each tool's result. */
  static List<LlmMessage> resumeMessages(List<WorkOrderCache.Round> journal) {
    List<LlmMessage> messages = new ArrayList<>();
    for (WorkOrderCache.Round round : journal) {
      List<LlmToolCall> calls = new ArrayList<>();
      for (ToolCall c : round.calls()) {
        calls.add(new LlmToolCall(c.callId(), c.name(), parseArgs(c.parameters())));
      }
      messages.add(LlmMessage.assistant(round.text(), round.thinking(), calls));
      for (int i = 0; i < calls.size(); i++) {
        String response = round.calls().get(i).response();
        messages.add(LlmMessage.tool(calls.get(i), response == null ? "" : response));
      }
    }
    return messages;
  }

  private static JsonNode parseArgs(String json) {
    try {
      return GadgetJson.mapper().readTree(json);
    } catch (Exception e) {
      return GadgetJson.mapper().getNodeFactory().textNode(json);
    }
  }
}
