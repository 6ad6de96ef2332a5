package dev.gadget.core.agent;

import java.util.concurrent.CompletableFuture;

/** A run in progress: a handle to cancel it or wait for its outcome. Thread-safe. */
public interface AgentRun {
  /**
   * Cancels the run at any moment: closes the model's stream, kills a running command's whole
   * process tree, and ends the run as {@link AgentOutcome.Status#CANCELLED} (unless it had already
   * ended). Returns at once; idempotent.
   */
  void cancel();

  /**
   * Completes with the outcome right after {@link AgentListener#onComplete}; never exceptionally.
   * Each call returns a new dependent future: cancelling it does not cancel the run.
   */
  CompletableFuture<AgentOutcome> outcome();
}
