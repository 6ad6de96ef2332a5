package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.InMemoryChatStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A live turn's block writes: in order, a waiting checkpoint replaced, the snapshot's view. */
class TurnWritesTest {
  static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  final InMemoryChatStore inner = new InMemoryChatStore();
  final AtomicInteger writes = new AtomicInteger();
  /** The writer "threads": tasks run when the test says. */
  final Queue<Runnable> writerTasks = new ArrayDeque<>();
  final ChatStore counting = (ChatStore) Proxy.newProxyInstance(getClass().getClassLoader(),
      new Class<?>[] {ChatStore.class}, (p, m, args) -> {
        if (m.getName().endsWith("Block")) {
          writes.incrementAndGet();
        }
        try {
          return m.invoke(inner, args);
        } catch (InvocationTargetException e) {
          throw e.getCause();
        }
      });

  private TurnWrites writesFor(String turnId) {
    inner.createTurn(ChatTurn.start(turnId, "s1", "u1", 0, "go", "build", T));
    return new TurnWrites(turnId, counting, writerTasks::add);
  }

  private void runWriters() {
    for (Runnable r; (r = writerTasks.poll()) != null; ) {
      r.run();
    }
  }

  private static TurnBlock.Responding text(int seq, String content) {
    return new TurnBlock.Responding(seq, T, content);
  }

  @Test
  void checkpointsThatWaitAreReplacedByTheNewestSoTheBlockIsWrittenOnce() {
    TurnWrites w = writesFor("t1");
    w.append(text(0, "Hel"));
    w.save(text(0, "Hello"));
    w.save(text(0, "Hello there"));
    assertThat(w.blocks()).containsEntry(0, text(0, "Hello there"));
    runWriters();
    assertThat(writes).hasValue(1);
    assertThat(inner.findTurn("t1").orElseThrow().blocks()).containsExactly(text(0, "Hello there"));
    assertThat(w.blocks()).containsExactly(Map.entry(0, text(0, "Hello there")));
    assertThat(w.flush()).isTrue();
  }

  @Test
  void manyBlocksAreWrittenInOrderAcrossBatches() {
    TurnWrites w = writesFor("t2");
    for (int i = 0; i < 200; i++) {
      w.append(text(i, "block " + i));
    }
    assertThat(writerTasks).hasSize(1); // one task a turn, however many writes wait
    runWriters();
    assertThat(inner.findTurn("t2").orElseThrow().blocks()).extracting(TurnBlock::seq)
        .containsExactlyElementsOf(java.util.stream.IntStream.range(0, 200).boxed().toList());
    assertThat(writes).hasValue(200);
  }

  @Test
  void aSnapshotSeesTheStoredTurnWithEveryBlockAskedForOnceWhateverWasWrittenWhenItRead() {
    TurnWrites w = writesFor("t3");
    w.append(text(0, "stored"));
    runWriters();
    w.save(text(0, "stored, then grown"));
    ToolCall call = new ToolCall("c1", "read_file", "{}", "A");
    w.append(new TurnBlock.Tool(1, T, call));
    ChatTurn read = inner.findTurn("t3").orElseThrow(); // read before the writes are made
    ChatTurn view = TurnWrites.withBlocks(read, w.blocks());
    assertThat(view.blocks()).containsExactly(text(0, "stored, then grown"),
        new TurnBlock.Tool(1, T, call));
    assertThat(view.toolCalls()).containsExactly(call);
    runWriters();
    // once written, the store alone says the same
    ChatTurn stored = inner.findTurn("t3").orElseThrow();
    assertThat(stored.blocks()).isEqualTo(view.blocks());
    // laid over a read made after the writes, the blocks change nothing
    assertThat(TurnWrites.withBlocks(stored, w.blocks())).isEqualTo(stored);
    assertThat(stored.toolCalls()).containsExactly(call);
  }
}
