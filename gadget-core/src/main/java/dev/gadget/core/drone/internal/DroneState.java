package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.AgentRun;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.WorkspaceMode;
import java.util.Optional;

/**
 * A drone's mutable state: the turn it runs and the workspace mode, both guarded by this object's
 * monitor, and whether the drone was closed.
 */
public final class DroneState {
  /** The turn this drone runs, or {@code null}. Guarded by {@code this}. */
  Job job;
  /** Who may change the workspace. Guarded by {@code this}. */
  WorkspaceMode mode = WorkspaceMode.IDLE;
  /** Set by {@link #close}; nothing is sent to the server after it. */
  volatile boolean closed;

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
