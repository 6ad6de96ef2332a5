package dev.gadget.core.agent.internal;

import dev.gadget.core.llm.LlmCall;

/**
 * The cancellation state of one run: whether it started or was cancelled, and what a cancel must
 * stop (the run's thread, its model call in flight, its tools). Thread-safe.
 */
public final class RunState {
  private final Object lock = new Object();
  // guarded by lock
  private boolean started;
  private boolean cancelled;
  private Thread runner;
  private LlmCall currentCall;
  private RunToolContext context;

  /**
   * Marks the run cancelled and stops what it is doing: cancels its tools' context, its model call
   * and interrupts its thread. Idempotent.
   *
   * @return whether this call cancelled a run that had not started, which nothing else will end
   */
  public boolean cancel() {
    LlmCall call;
    Thread thread;
    boolean notStarted;
    RunToolContext ctx;
    synchronized (lock) {
      if (cancelled) {
        return false;
      }
      cancelled = true;
      call = currentCall;
      thread = runner;
      notStarted = !started;
      ctx = context;
    }
    if (notStarted) {
      return true;
    }
    if (ctx != null) {
      ctx.cancel();
    }
    if (call != null) {
      call.cancel();
    }
    if (thread != null) {
      thread.interrupt();
    }
    return false;
  }

  /**
   * The current thread starts running the turn.
   *
   * @return {@code false} if the run was cancelled before it started
   */
  public boolean start() {
    synchronized (lock) {
      if (cancelled) {
        return false;
      }
      started = true;
      runner = Thread.currentThread();
      return true;
    }
  }

  /** The run's thread is done with it: a cancel no longer interrupts it. */
  public void end() {
    synchronized (lock) {
      runner = null;
    }
  }

  /**
   * The tools' context of the run, to cancel along with it.
   *
   * @throws Cancelled if the run is cancelled
   */
  public void attach(RunToolContext ctx) {
    synchronized (lock) {
      context = ctx;
      if (cancelled) {
        throw new Cancelled();
      }
    }
  }

  /**
   * A model call is in flight, to cancel along with the run.
   *
   * @return whether the run is already cancelled (then the caller cancels {@code call})
   */
  public boolean callStarted(LlmCall call) {
    synchronized (lock) {
      currentCall = call;
      return cancelled;
    }
  }

  /** The model call in flight has ended. */
  public void callEnded() {
    synchronized (lock) {
      currentCall = null;
    }
  }

  /** Whether the run was cancelled. */
  public boolean isCancelled() {
    synchronized (lock) {
      return cancelled;
    }
  }

  /**
   * Unwinds the run if it was cancelled.
   *
   * @throws Cancelled if it was
   */
  public void checkCancelled() {
    if (isCancelled()) {
      throw new Cancelled();
    }
  }
}
