package dev.gadget.store.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.stream.BlockAggregator;
import dev.gadget.core.stream.StreamChunk;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Counts the writes one turn costs: a 2,000-token turn with k mode changes and t tool calls,
 * aggregated by core's {@link BlockAggregator} and stored one block at a time, must take one
 * insert, one single-statement {@code $push} update per block and one finalizing update: at most
 * k + t + 3 writes.
 */
@ExtendWith(TestMongo.Extension.class)
class TurnWriteCountTest {
  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00.123Z");
  private static final int TOKENS = 2_000;

  private final CommandRecorder recorder = new CommandRecorder();
  private String database;
  private MongoChatStore store;

  @BeforeEach
  void open() {
    database = TestMongo.get().newDatabase();
    store = recorder.openStore(database);
  }

  @AfterEach
  void close() {
    store.close();
    TestMongo.get().drop(database);
  }

  @ParameterizedTest(name = "k={0} mode changes, t={1} tool calls")
  @CsvSource({"0, 0", "1, 0", "0, 1", "4, 3", "9, 2", "25, 12", "3, 10"})
  void oneTurnIsOneInsertOnePushPerBlockAndOneFinalize(int k, int t) {
    User ada = new User(Ids.next(), "ada", "Ada", T0);
    store.createUser(ada);
    Project p = new Project(Ids.next(), ada.id(), "one", "one", "/r/one.git", T0);
    store.createProject(p);
    ChatSession s = new ChatSession(Ids.next(), ada.id(), p.id(), "s", null, T0);
    store.createSession(s);
    recorder.clear();

    ChatTurn turn = ChatTurn.start(Ids.next(), s.id(), ada.id(), 0, "go", "build", T0);
    List<TurnBlock> flushed = new ArrayList<>();
    store.createTurn(turn);
    BlockAggregator aggregator = new BlockAggregator(block -> {
      store.appendBlock(turn.id(), block);
      flushed.add(block);
    }, Clock.fixed(T0, ZoneOffset.UTC), 0);
    Script script = Script.of(k, t);
    script.chunks().forEach(aggregator::accept);
    aggregator.complete();
    assertThat(store.finalizeTurn(turn.id(), TurnStatus.FINISHED,
        new TurnStats(10, TOKENS, 500, t, 1, 1234), null, T0.plusSeconds(9))).isTrue();

    int blocks = flushed.size();
    List<CommandRecorder.Command> writes = recorder.writes();
    assertThat(blocks).isEqualTo(k + 1 + t);
    assertThat(writes).hasSize(1 + blocks + 1);
    assertThat(writes.size()).isLessThanOrEqualTo(k + t + 3);

    // Each write is one statement: nothing batches several writes into one command.
    assertThat(writes).allSatisfy(w -> assertThat(w.statements()).hasSize(1));
    assertThat(writes.get(0).name()).isEqualTo("insert");
    // Every block is a $push onto the turn, filtered on its seq: never a rewrite.
    for (int i = 0; i < blocks; i++) {
      CommandRecorder.Command w = writes.get(1 + i);
      assertThat(w.name()).isEqualTo("update");
      BsonDocument statement = w.statements().get(0);
      assertThat(statement.getDocument("u").keySet()).containsExactly("$push");
      BsonDocument push = statement.getDocument("u").getDocument("$push");
      assertThat(push.keySet()).isEqualTo(flushed.get(i) instanceof TurnBlock.Tool
          ? Set.of("blocks", "toolCalls") : Set.of("blocks"));
      assertThat(statement.getDocument("q").toJson()).contains(turn.id()).contains("blocks.seq");
      assertThat(statement.getBoolean("multi", BsonBoolean.FALSE).getValue()).isFalse();
    }
    CommandRecorder.Command last = writes.get(writes.size() - 1);
    assertThat(last.name()).isEqualTo("update");
    assertThat(last.statements().get(0).getDocument("q").toJson()).contains("processing");
    assertThat(last.statements().get(0).getDocument("u").keySet()).doesNotContain("$push");

    // Nothing was lost on the way: the stored turn is what the aggregator produced.
    ChatTurn back = store.findTurn(turn.id()).orElseThrow();
    assertThat(back.blocks()).containsExactlyElementsOf(flushed);
    assertThat(back.toolCalls()).containsExactlyElementsOf(script.calls());
    assertThat(back.status()).isEqualTo(TurnStatus.FINISHED);
    StringBuilder text = new StringBuilder();
    for (TurnBlock b : back.blocks()) {
      if (b instanceof TurnBlock.Thinking th) {
        text.append(th.content());
      } else if (b instanceof TurnBlock.Responding r) {
        text.append(r.content());
      }
    }
    assertThat(text.toString()).isEqualTo(script.text());
  }

  /**
   * A token stream: {@value #TOKENS} tokens in k + 1 runs that alternate thinking and
   * responding (k mode changes), with t tool calls spread over the boundaries between runs.
   */
  private record Script(List<StreamChunk> chunks, List<ToolCall> calls, String text) {
    static Script of(int k, int t) {
      int runs = k + 1;
      int boundaries = runs + 1; // before the first run, between runs, after the last
      List<List<ToolCall>> toolsAt = new ArrayList<>();
      for (int b = 0; b < boundaries; b++) {
        toolsAt.add(new ArrayList<>());
      }
      List<ToolCall> calls = new ArrayList<>();
      for (int i = 0; i < t; i++) {
        ToolCall call = new ToolCall("c" + i, "read_file", "{\"path\":\"f" + i + "\"}", "r" + i);
        calls.add(call);
        toolsAt.get((i * 7 + 1) % boundaries).add(call);
      }
      // The turn keeps its calls in stream order, which is boundary order.
      List<ToolCall> inStreamOrder = new ArrayList<>();
      toolsAt.forEach(inStreamOrder::addAll);
      List<StreamChunk> chunks = new ArrayList<>();
      StringBuilder text = new StringBuilder();
      int token = 0;
      for (int run = 0; run < runs; run++) {
        toolsAt.get(run).forEach(c -> chunks.add(new StreamChunk.ToolCallChunk(c)));
        int size = TOKENS / runs + (run < TOKENS % runs ? 1 : 0);
        for (int i = 0; i < size; i++, token++) {
          String data = "t" + token + " ";
          text.append(data);
          chunks.add(run % 2 == 0 ? new StreamChunk.Thinking(data) : new StreamChunk.Response(data));
        }
      }
      toolsAt.get(runs).forEach(c -> chunks.add(new StreamChunk.ToolCallChunk(c)));
      assertThat(token).isEqualTo(TOKENS);
      return new Script(chunks, inStreamOrder, text.toString());
    }
  }
}
