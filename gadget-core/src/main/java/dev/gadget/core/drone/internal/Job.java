package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.AgentRun;
import dev.gadget.core.drone.WorkOrderCache;
import java.util.concurrent.ScheduledFuture;

/**
 * The turn a drone runs, from its work order (or its cache, after a crash) until the server
 * acknowledges its end. Every field is guarded by the {@link DroneState}'s monitor.
 */
final class Job {
  final String turnId;
  long nextSeq;
  AgentRun run;
  WorkOrderCache cache;
  boolean abandoned;
  /** Restored from the cache at start; waiting for the server's recovery answer. */
  boolean pendingRecovery;
  /** Its end was reported; only the server's acknowledgement is awaited. */
  boolean finished;
  /** Cancelled before the loop started (during the checkout). */
  boolean cancelRequested;
  ScheduledFuture<?> heartbeat;
  /** The project's state before the turn, to report what it changed; null: none. */
  TurnCheckpoint checkpoint;
  /** Asks the server about calls that wait for approval; null when none may wait. */
  DroneApprovals approvals;
  /** The worker thread while it checks out and starts; a cancel interrupts it. */
  Thread starting;

  Job(String turnId, long firstSeq) {
    this.turnId = turnId;
    this.nextSeq = firstSeq;
  }
}
