package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.AgentRun;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.WorkspaceMode;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A drone's mutable state: the turn it runs and the workspace mode, both guarded by this object's
 * monitor, and whether the drone was closed.
 */
public final class DroneState {
  /** The turn this drone runs, or {@code null}. Guarded by {@code this}. */
  Job job;
  /** Who may change the workspace. Guarded by {@code this}. */
  WorkspaceMode mode = WorkspaceMode.IDLE;
  /**
   * The undos and commits received whose git has not finished yet: no work order is accepted
   * meanwhile, so that the agent never works in a checkout git is changing. Guarded by
   * {@code this}.
   */
  int gitChanges;
  /** Set by {@link #close}; nothing is sent to the server after it. */
  volatile boolean closed;
  /**
   * Set when a clean stop begins: the turn's end as the pages will read it. No work order is
   * accepted after it. Guarded by {@code this}.
   */
  String stopMessage;

  /** The turn being run, if any. */
  public Optional<String> activeTurnId() {
    synchronized (this) {
      return job == null || job.finished ? Optional.empty() : Optional.of(job.turnId);
    }
  }

  /** Busy while a turn runs, otherwise available. */
  DroneStatus status() {
    synchronized (this) {
      return job == null || job.finished ? DroneStatus.AVAILABLE : DroneStatus.BUSY;
    }
  }

  /**
   * Waits until {@code j} is no longer this drone's turn (the server acknowledged its end), at
   * most {@code timeoutNanos}; whether it happened. Whoever clears {@link #job} notifies.
   */
  boolean awaitGone(Job j, long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    synchronized (this) {
      while (job == j) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }
  }

  /**
   * Marks the drone closed and returns the agent run to cancel, if any. When {@code abandon}, the
   * turn is dropped as a crash would drop it: no further events, and its cache stays.
   */
  public AgentRun close(boolean abandon) {
    closed = true;
    synchronized (this) {
      if (job == null) {
        return null;
      }
      if (abandon) {
        job.abandoned = true;
      }
      return job.run;
    }
  }
}
