package dev.gadget.core.transport.internal;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a shared executor: per-connection ordering
 * without a thread per connection. A task that throws is logged and the next one runs.
 * Used by the transports (exported to Gadget's own adapter modules only).
 */
public final class SerialExecutor implements Executor {
  private static final Logger log = LoggerFactory.getLogger(SerialExecutor.class);

  private final Executor delegate;
  private final Queue<Runnable> tasks = new ArrayDeque<>();
  private boolean running;

  /** Serializes tasks onto {@code delegate}. */
  public SerialExecutor(Executor delegate) {
    this.delegate = delegate;
  }

  @Override
  public void execute(Runnable task) {
    synchronized (tasks) {
      tasks.add(task);
      if (running) {
        return;
      }
      running = true;
    }
    handOff();
  }

  /** The queued tasks go to the shared executor (while {@code running}). */
  private void handOff() {
    try {
      delegate.execute(this::drain);
    } catch (RejectedExecutionException e) {
      // The pool is shutting down: drop what is queued rather than stay stuck as "running".
      synchronized (tasks) {
        tasks.clear();
        running = false;
      }
      log.debug("executor refused a task; the connection is shutting down");
    }
  }

  /**
   * Runs {@code task} on the calling thread when nothing of this executor runs or waits (it must
   * not block), else queues it as {@link #execute} does. Tasks queued while it runs go to the
   * shared executor afterwards, in order.
   */
  public void executeInlineIfIdle(Runnable task) {
    synchronized (tasks) {
      if (running) {
        tasks.add(task);
        return;
      }
      running = true;
    }
    try {
      task.run();
    } catch (RuntimeException | Error e) {
      log.warn("event handler failed; the connection goes on", e);
    }
    synchronized (tasks) {
      if (tasks.isEmpty()) {
        running = false;
        return;
      }
    }
    handOff();
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
        log.warn("event handler failed; the connection goes on", e);
      }
    }
  }
}
