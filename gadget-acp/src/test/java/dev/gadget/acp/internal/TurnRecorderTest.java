package dev.gadget.acp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.stream.StreamChunk;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TurnRecorderTest {
  private final ExecutorService writer = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    writer.shutdownNow();
  }

  /** An in-memory store whose block writes wait until {@code open} is counted down. */
  private static ChatStore slow(ChatStore store, CountDownLatch open) {
    return (ChatStore) Proxy.newProxyInstance(ChatStore.class.getClassLoader(),
        new Class<?>[] {ChatStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("appendBlock")) {
            open.await(30, TimeUnit.SECONDS);
          }
          try {
            return method.invoke(store, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

  @Test
  void aStoreSlowerThanTheModelHoldsTheTurnBackAndLosesNoBlock() throws Exception {
    InMemoryChatStore memory = new InMemoryChatStore();
    CountDownLatch open = new CountDownLatch(1);
    TurnRecorder recorder = TurnRecorder.start(slow(memory, open), writer, "s1", 0, "go", "m");
    int blocks = TurnRecorder.MAX_PENDING + 50;
    AtomicInteger fed = new AtomicInteger();
    Thread model = new Thread(() -> {
      for (int i = 0; i <= blocks; i++) { // each change of mode finishes the block before
        recorder.onChunk(i % 2 == 0 ? new StreamChunk.Thinking("t" + i)
            : new StreamChunk.Response("r" + i));
        fed.incrementAndGet();
      }
    }, "model");
    model.start();

    await(() -> recorder.pending() == TurnRecorder.MAX_PENDING
        && model.getState() == Thread.State.TIMED_WAITING);
    assertThat(fed.get()).as("the model waits for the store").isLessThan(blocks);
    open.countDown();
    model.join(TimeUnit.SECONDS.toMillis(20));
    assertThat(model.isAlive()).isFalse();
    recorder.flush();

    ChatTurn turn = memory.listTurns("s1").get(0);
    List<String> texts = turn.blocks().stream().map(TurnRecorderTest::text).toList();
    assertThat(texts).hasSize(blocks);
    for (int i = 0; i < blocks; i++) {
      assertThat(texts.get(i)).isEqualTo((i % 2 == 0 ? "t" : "r") + i);
    }
    assertThat(recorder.pending()).isZero();
  }

  private static String text(TurnBlock block) {
    if (block instanceof TurnBlock.Thinking t) {
      return t.content();
    }
    return ((TurnBlock.Responding) block).content();
  }

  /** Polls {@code condition} until it holds, failing after 20 s (as RuntimeFixture#await). */
  private static void await(BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 20 s").isLessThan(deadline);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }
}
