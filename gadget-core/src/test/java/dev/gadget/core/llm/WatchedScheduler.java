package dev.gadget.core.llm;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A real one-thread timer that lets a test wait until a task with a given delay is scheduled on
 * it, such as a client's retry wait, instead of guessing with a sleep. Give it to a client's
 * builder ({@code builder.scheduler = ...}); {@link #shutdownNow()} it after the test.
 */
final class WatchedScheduler extends ScheduledThreadPoolExecutor {
  private final long watchedNanos;
  /** Completes with the watched task's future once it is scheduled. */
  final CompletableFuture<ScheduledFuture<?>> scheduled = new CompletableFuture<>();

  /** Watches for a task scheduled with exactly {@code delay}. */
  WatchedScheduler(Duration delay) {
    super(1, r -> {
      Thread t = new Thread(r, "watched-llm-timer");
      t.setDaemon(true);
      return t;
    });
    this.watchedNanos = delay.toNanos();
    setRemoveOnCancelPolicy(true);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    ScheduledFuture<?> f = super.schedule(command, delay, unit);
    if (unit.toNanos(delay) == watchedNanos) {
      scheduled.complete(f);
    }
    return f;
  }
}
