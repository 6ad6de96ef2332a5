package dev.gadget.core.server.internal;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** The server's one timer thread: grace periods, cancel deadlines and the silence check. */
public final class ServerTimer implements AutoCloseable {
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "gadget-server-timer");
    t.setDaemon(true);
    return t;
  });

  /** Runs {@code task} once after {@code delay}; does nothing (returns {@code null}) once closed. */
  public ScheduledFuture<?> schedule(Runnable task, Duration delay) {
    try {
      return timer.schedule(task, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  /** Runs {@code task} every {@code periodMillis}, first after one period. */
  public ScheduledFuture<?> every(Runnable task, long periodMillis) {
    return timer.scheduleAtFixedRate(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
