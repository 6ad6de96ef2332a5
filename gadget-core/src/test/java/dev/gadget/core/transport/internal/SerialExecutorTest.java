package dev.gadget.core.transport.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One connection's handlers: in order, on the pool or (non-blocking, when idle) inline. */
class SerialExecutorTest {
  private final ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
    Thread t = new Thread(r, "pool-thread");
    t.setDaemon(true);
    return t;
  });
  private final SerialExecutor serial = new SerialExecutor(pool);
  private final List<String> ran = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private Runnable record(String name) {
    return () -> ran.add(name + "@" + Thread.currentThread().getName());
  }

  @Test
  void anIdleExecutorRunsANonBlockingTaskOnTheCallersThread() {
    String me = Thread.currentThread().getName();
    serial.executeInlineIfIdle(record("a"));
    assertThat(ran).containsExactly("a@" + me);
  }

  @Test
  void aTaskArrivingWhileAnotherRunsWaitsForItAndRunsOnThePoolInOrder() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    serial.execute(() -> {
      started.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ran.add("slow");
    });
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    serial.executeInlineIfIdle(record("b")); // busy: queued, not run here
    serial.execute(record("c"));
    assertThat(ran).isEmpty();
    release.countDown();
    CountDownLatch done = new CountDownLatch(1);
    serial.execute(done::countDown);
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(ran).containsExactly("slow", "b@pool-thread", "c@pool-thread");
  }

  @Test
  void tasksQueuedDuringAnInlineTaskRunAfterItInOrder() throws Exception {
    CountDownLatch done = new CountDownLatch(1);
    serial.executeInlineIfIdle(() -> {
      // what the reading thread runs inline; meanwhile other events arrive
      serial.execute(record("second"));
      serial.executeInlineIfIdle(record("third"));
      serial.execute(done::countDown);
      ran.add("first");
    });
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(ran).containsExactly("first", "second@pool-thread", "third@pool-thread");
  }

  @Test
  void aThrowingInlineTaskIsLoggedAndTheNextOneRuns() throws Exception {
    serial.executeInlineIfIdle(() -> {
      throw new IllegalStateException("boom");
    });
    serial.executeInlineIfIdle(record("after"));
    assertThat(ran).hasSize(1).allMatch(s -> s.startsWith("after@"));
  }
}
