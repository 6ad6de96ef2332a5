package dev.gadget.transport.ws.internal;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a shared delegate executor: one per
 * connection, so a connection's handlers are serial while a slow one holds only its own queue.
 */
public final class SerialExecutor implements Executor {
  private static final Logger log = LoggerFactory.getLogger(SerialExecutor.class);

  private final Executor delegate;
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  private boolean running;

  public SerialExecutor(Executor delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public void execute(Runnable task) {
    Objects.requireNonNull(task, "task");
    synchronized (tasks) {
      tasks.add(task);
      if (running) {
        return;
      }
      running = true;
    }
    try {
      delegate.execute(this::drain);
    } catch (RejectedExecutionException e) {
      synchronized (tasks) {
        running = false;
        tasks.clear();
      }
      log.debug("Dropped a task: the handler executor is shut down");
    }
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (tasks) {
        next = tasks.poll();
        if (next == null) {
          running = false;
          return;
        }
      }
      try {
        next.run();
      } catch (RuntimeException | Error e) {
        log.error("A task on a serial executor failed", e);
      }
    }
  }
}
