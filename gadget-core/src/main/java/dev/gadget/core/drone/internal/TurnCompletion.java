package dev.gadget.core.drone.internal;

import dev.gadget.core.drone.DroneListener;
import dev.gadget.core.drone.WorkOrderCache;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkspaceMode;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends a turn: reports its end to the server, retrying with backoff until the server
 * acknowledges it, then frees the drone and removes the work order cache.
 */
public final class TurnCompletion {
  private static final Logger log = LoggerFactory.getLogger(TurnCompletion.class);

  private final DroneState state;
  private final DroneWorkspace workspace;
  private final ServerLink link;
  private final DroneListener listener;
  private final ScheduledExecutorService timer;
  private final UnaryOperator<String> redact;

  /**
   * Retries on {@code timer}; a turn's end message goes through {@code redact} first, so that no
   * secret reaches the server, the pages or the drone's files.
   */
  public TurnCompletion(DroneState state, DroneWorkspace workspace, ServerLink link,
      DroneListener listener, ScheduledExecutorService timer, UnaryOperator<String> redact) {
    this.redact = Objects.requireNonNull(redact, "redact");
    this.state = Objects.requireNonNull(state, "state");
    this.workspace = Objects.requireNonNull(workspace, "workspace");
    this.link = Objects.requireNonNull(link, "link");
    this.listener = Objects.requireNonNull(listener, "listener");
    this.timer = Objects.requireNonNull(timer, "timer");
  }

  /** Reports the end of a turn until the server acknowledges it, then clears the cache. */
  void complete(Job j, TurnStatus status, TurnStats stats, String message) {
    complete(j, status, stats, message, null);
  }

  /** As {@link #complete(Job, TurnStatus, TurnStats, String)}, with the model's last reply. */
  void complete(Job j, TurnStatus status, TurnStats stats, String message, String text) {
    message = redact.apply(message);
    long seq;
    synchronized (state) {
      if (j.abandoned) {
        return;
      }
      if (j.finished) {
        return;
      }
      j.finished = true;
      seq = j.nextSeq++;
      if (status == TurnStatus.CANCELLED && state.stopMessage != null) {
        // Cancelled because the drone is stopping: say so, not "cancelled" alone, and remember
        // it, so that a next start reports this end again if the server misses it now.
        message = state.stopMessage;
        if (j.cache != null) {
          j.cache = j.cache.stopped(message, seq);
          writeCache(j.cache);
        }
      } else if (j.cache != null) {
        // seed 001: completed or error (with the message) until the server has the end
        j.cache = j.cache.ended(status, stats, message, seq);
        writeCache(j.cache);
      }
      if (j.heartbeat != null) {
        j.heartbeat.cancel(false);
      }
    }
    log.info("turn {} ended: {}{}", j.turnId, status.name().toLowerCase(),
        message == null ? "" : " (" + message + ")");
    listener.onTurnEnded(j.turnId, status.name().toLowerCase(), message, stats);
    Payloads.WorkOrderComplete done =
        new Payloads.WorkOrderComplete(j.turnId, seq, status, stats, message, text);
    send(j, done, 0);
  }

  /**
   * Reports again the end of a turn the drone stopped before the server acknowledged it (found
   * in the cache at start), until the server acknowledges it; {@code j} is finished.
   */
  void resend(Job j, Payloads.WorkOrderComplete done) {
    send(j, done, 0);
  }

  private void writeCache(WorkOrderCache cache) {
    try {
      workspace.writeWorkOrder(cache);
    } catch (WorkspaceException e) {
      log.error(e.getMessage());
    }
  }

  private void send(Job j, Payloads.WorkOrderComplete done, int attempt) {
    link.emitWithAck(Protocol.WORK_ORDER_COMPLETE, done).ifPresent(sent ->
        sent.whenComplete((reply, error) -> {
          if (error != null) {
            if (!state.closed) {
              log.warn("the server did not acknowledge the end of turn {} ({}); retrying",
                  j.turnId, error.getMessage());
              timer.schedule(() -> send(j, done, attempt + 1),
                  Math.min(5_000, 100L << Math.min(attempt, 6)), TimeUnit.MILLISECONDS);
            }
            return;
          }
          boolean stopping;
          synchronized (state) {
            stopping = state.stopMessage != null;
            if (state.job == j) {
              state.job = null;
              state.notifyAll();
              state.mode = WorkspaceMode.IDLE;
              try {
                workspace.deleteWorkOrder();
              } catch (WorkspaceException e) {
                log.error(e.getMessage());
              }
            }
          }
          if (!stopping) {
            // A stopping drone goes offline next; it is not available for work.
            link.emitStatus();
            link.emitMode();
          }
        }));
  }
}
