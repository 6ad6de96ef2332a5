package dev.gadget.transport.ws.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Thread pools for the transport: daemon threads with readable names. */
public final class Threads {
  private Threads() {}

  /** A cached pool for handlers (each busy connection gets its own thread). */
  public static ExecutorService handlerPool(String prefix) {
    return Executors.newCachedThreadPool(factory(prefix + "-handler-"));
  }

  /** One timer thread for pings, timeouts and reconnects. */
  public static ScheduledThreadPoolExecutor timer(String prefix) {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, factory(prefix + "-timer-"));
    timer.setRemoveOnCancelPolicy(true);
    timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return timer;
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
