package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentOutcome;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Delivers the events of one run to its {@link AgentListener}: one at a time, none after the
 * single {@link AgentListener#onComplete}, a listener's exception logged and ignored. Also
 * completes the run's outcome. Thread-safe.
 */
public final class RunEvents {
  private final AgentListener listener;
  private final WarnOnce listenerWarning;
  private final CompletableFuture<AgentOutcome> result = new CompletableFuture<>();
  private final Object emitLock = new Object();
  // guarded by emitLock
  private boolean terminated;

  /** Events for {@code listener}; its exceptions go to {@code listenerWarning}. */
  public RunEvents(AgentListener listener, WarnOnce listenerWarning) {
    this.listener = Objects.requireNonNull(listener, "listener");
    this.listenerWarning = Objects.requireNonNull(listenerWarning, "listenerWarning");
  }

  /** Calls the listener, unless the run has ended. */
  public void emit(Consumer<AgentListener> event) {
    synchronized (emitLock) {
      if (terminated) {
        return;
      }
      try {
        event.accept(listener);
      } catch (RuntimeException e) {
        listenerThrew(e);
      }
    }
  }

  /** Ends the run with {@code outcome}, unless it has ended already. */
  public void finish(AgentOutcome outcome) {
    synchronized (emitLock) {
      if (terminated) {
        return;
      }
      terminated = true;
      try {
        listener.onComplete(outcome);
      } catch (RuntimeException e) {
        listenerThrew(e);
      }
    }
    result.complete(outcome);
  }

  /** A new dependent future of the run's outcome. */
  public CompletableFuture<AgentOutcome> outcome() {
    return result.copy();
  }

  private void listenerThrew(RuntimeException e) {
    listenerWarning.log(
        "an AgentListener threw; the run goes on (further ones are logged at DEBUG)",
        "an AgentListener threw; the run goes on", e);
  }
}
