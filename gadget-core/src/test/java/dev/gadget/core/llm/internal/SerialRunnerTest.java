package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SerialRunnerTest {
  @Test
  void aTaskSubmittedFromATaskRunsAfterIt() {
    SerialRunner runner = new SerialRunner();
    List<String> order = new ArrayList<>();
    runner.execute(() -> {
      order.add("a-start");
      runner.execute(() -> order.add("b"));
      order.add("a-end");
    });
    assertThat(order).containsExactly("a-start", "a-end", "b");
  }

  @Test
  void tasksFromManyThreadsNeverOverlapAndNoneIsLost() throws Exception {
    SerialRunner runner = new SerialRunner();
    AtomicInteger inside = new AtomicInteger();
    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    int[] counter = {0};
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch done = new CountDownLatch(8 * 10_000);
    for (int t = 0; t < 8; t++) {
      pool.execute(() -> {
        for (int i = 0; i < 10_000; i++) {
          runner.execute(() -> {
            if (inside.incrementAndGet() != 1) {
              problems.add("overlap");
            }
            counter[0]++;
            inside.decrementAndGet();
            done.countDown();
          });
        }
      });
    }
    assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
    pool.shutdown();
    runner.execute(() -> assertThat(counter[0]).isEqualTo(80_000));
    assertThat(problems).isEmpty();
  }

  @Test
  void aThrowingTaskDoesNotStopTheOthers() {
    SerialRunner runner = new SerialRunner();
    List<String> order = new ArrayList<>();
    runner.execute(() -> {
      runner.execute(() -> order.add("after"));
      throw new IllegalStateException("boom (expected by the test)");
    });
    assertThat(order).containsExactly("after");
  }
}
