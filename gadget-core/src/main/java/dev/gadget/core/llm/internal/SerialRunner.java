package dev.gadget.core.llm.internal;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on whichever thread submits while no other
 * task is running (a trampoline: no thread of its own, no blocking). A task that submits another
 * returns before the other runs. What tasks write is visible to the tasks after them.
 */
public final class SerialRunner {
  private static final Logger log = LoggerFactory.getLogger(SerialRunner.class);

  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pending = new AtomicInteger();

  /** Runs {@code task} now, or after the tasks before it. */
  public void execute(Runnable task) {
    tasks.add(task);
    if (pending.getAndIncrement() != 0) {
      return;
    }
    do {
      Runnable next = tasks.poll();
      try {
        next.run();
      } catch (Throwable t) {
        log.error("Internal error in an LLM call task", t);
      }
    } while (pending.decrementAndGet() != 0);
  }
}
