package dev.gadget.core.llm.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads the HTTP LLM clients share: one scheduler thread for timeouts and retry waits (its
 * tasks only hand work on), and a cached pool for the HTTP client's callbacks. All daemons;
 * idle pool threads end after a minute. No thread belongs to a call.
 */
public final class LlmThreads {
  private static final ScheduledExecutorService SCHEDULER;
  private static final ExecutorService EXECUTOR =
      Executors.newCachedThreadPool(factory("gadget-llm-"));

  static {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, factory("gadget-llm-timer-"));
    s.setRemoveOnCancelPolicy(true);
    SCHEDULER = s;
  }

  private LlmThreads() {}

  /** The shared timer. Its tasks must be short: hand real work to {@link #executor()}. */
  public static ScheduledExecutorService scheduler() {
    return SCHEDULER;
  }

  /** The shared pool for HTTP callbacks and listener calls. */
  public static ExecutorService executor() {
    return EXECUTOR;
  }

  private static ThreadFactory factory(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
