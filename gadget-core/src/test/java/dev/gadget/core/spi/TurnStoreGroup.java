package dev.gadget.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.ToolStep;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnDiff;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The part of {@link ChatStoreContract} about a turn: its blocks in order, saved over and never
 * doubled, its tool calls, finalized once, listed by seq. Runs as a nested group of the kit.
 */
public abstract class TurnStoreGroup {
  private static final Instant T0 = ChatStoreContract.T0;
  private final ChatStoreContract kit;

  protected TurnStoreGroup(ChatStoreContract kit) {
    this.kit = kit;
  }

  private ChatStore store() {
    return kit.store;
  }

  private User user(String name) {
    return kit.user(name);
  }

  private Project project(User owner, String slug) {
    return kit.project(owner, slug);
  }

  private ChatSession session(User owner, Project project) {
    return kit.session(owner, project);
  }

  private ChatTurn turn(ChatSession s, long seq) {
    return kit.turn(s, seq);
  }

  @Test
  void appendsBlocksInOrderAndCollectsToolCalls() {
    User ada = user("ada");
    ChatSession s = session(ada, project(ada, "one"));
    ChatTurn t = turn(s, 0);
    ToolCall call = new ToolCall("c1", "read_file", "{\"path\":\"a\"}", "text");
    store().appendBlock(t.id(), new TurnBlock.Thinking(0, T0, "hmm"));
    store().appendBlock(t.id(), new TurnBlock.Responding(1, T0, "Sure"));
    store().appendBlock(t.id(), new TurnBlock.Tool(2, T0, call));
    store().appendBlock(t.id(), new TurnBlock.Responding(3, T0, " done"));

    ChatTurn back = store().findTurn(t.id()).orElseThrow();
    assertThat(back.blocks()).extracting(TurnBlock::seq).containsExactly(0, 1, 2, 3);
    assertThat(back.blocks().get(0)).isEqualTo(new TurnBlock.Thinking(0, T0, "hmm"));
    assertThat(back.blocks().get(2)).isEqualTo(new TurnBlock.Tool(2, T0, call));
    assertThat(back.toolCalls()).containsExactly(call);
    assertThat(back.status()).isEqualTo(TurnStatus.PROCESSING);
  }

  @Test
  void keepsAFailedToolCallsErrorFlagEveryCallsDurationAndACompositesSteps() {
    User ada = user("ada");
    ChatTurn t = turn(session(ada, project(ada, "one")), 0);
    ToolCall failed = new ToolCall("c1", "read_file", "{\"path\":\".\"}", "Error: . is a "
        + "directory", true, 12L);
    ToolCall ok = new ToolCall("c2", "both", "{}", "exit code: 0", false, 3_001L)
        .withSteps(List.of(new ToolStep("upper", 0, 5L), new ToolStep("count", 3, null),
            new ToolStep("upper", null, null)));
    store().appendBlock(t.id(), new TurnBlock.Tool(0, T0, failed));
    store().appendBlock(t.id(), new TurnBlock.Tool(1, T0, ok));

    ChatTurn back = store().findTurn(t.id()).orElseThrow();
    assertThat(back.toolCalls()).containsExactly(failed, ok);
    assertThat(back.toolCalls().get(0).failed()).isTrue();
    assertThat(back.toolCalls().get(1).failed()).isFalse();
    assertThat(back.toolCalls().get(1).durationMs()).isEqualTo(3_001L);
    assertThat(back.toolCalls().get(1).steps()).isEqualTo(ok.steps());
  }

  @Test
  void keepsADiffBlockWholeAndNeverSavesOverIt() {
    User ada = user("ada");
    ChatTurn t = turn(session(ada, project(ada, "one")), 0);
    TurnDiff diff = new TurnDiff(List.of(
        new TurnDiff.FileChange("a.txt", TurnDiff.FileChange.MODIFIED, false, 1, 1),
        new TurnDiff.FileChange("logo.png", TurnDiff.FileChange.ADDED, true, 0, 0)),
        "diff --git a/a.txt b/a.txt\n-one\n+\"two\"\n", true, "cut at 256 KB", null);
    store().appendBlock(t.id(), new TurnBlock.Responding(0, T0, "Done."));
    store().appendBlock(t.id(), new TurnBlock.Diff(1, T0, diff));
    store().appendBlock(t.id(), new TurnBlock.Diff(2, T0, diff.asRevertOf(t.id())));

    assertThat(store().findTurn(t.id()).orElseThrow().blocks()).containsExactly(
        new TurnBlock.Responding(0, T0, "Done."), new TurnBlock.Diff(1, T0, diff),
        new TurnBlock.Diff(2, T0, diff.asRevertOf(t.id())));
    assertThatThrownBy(() -> store().saveBlock(t.id(), new TurnBlock.Diff(1, T0, diff)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().saveBlock(t.id(), new TurnBlock.Responding(1, T0, "x")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().findTurn(t.id()).orElseThrow().blocks().get(1))
        .isEqualTo(new TurnBlock.Diff(1, T0, diff));
  }

  @Test
  void keepsACompactionBlockAndTheContextStats() {
    User ada = user("ada");
    ChatSession s = session(ada, project(ada, "one"));
    ChatTurn t = turn(s, 0);
    TurnBlock.Compaction c = new TurnBlock.Compaction(0, T0, new ContextCompaction(
        "the summary", "4 messages: 2 rounds of this turn", 4, 9000, 2500, t.id(), "c1",
        true));
    TurnBlock.Compaction whole = new TurnBlock.Compaction(1, T0, new ContextCompaction(
        "again", "2 messages: from 1 earlier turn", 2, 8000, 2000, "t0", null, false));
    store().appendBlock(t.id(), c);
    store().appendBlock(t.id(), whole);
    TurnStats stats = new TurnStats(1, 2, 3, 4, 5, 6, 7000, 9000).withTools(10, 302);
    store().finalizeTurn(t.id(), TurnStatus.FINISHED, stats, null, T0);

    ChatTurn back = store().findTurn(t.id()).orElseThrow();
    assertThat(back.blocks()).containsExactly(c, whole);
    assertThat(back.toolCalls()).isEmpty();
    assertThat(back.stats()).isEqualTo(stats);
  }

  @Test
  void ignoresABlockWhoseSeqIsAlreadyStored() {
    User ada = user("ada");
    ChatTurn t = turn(session(ada, project(ada, "one")), 0);
    store().appendBlock(t.id(), new TurnBlock.Responding(0, T0, "first"));
    store().appendBlock(t.id(), new TurnBlock.Responding(0, T0, "replayed"));
    assertThat(store().findTurn(t.id()).orElseThrow().blocks())
        .containsExactly(new TurnBlock.Responding(0, T0, "first"));
  }

  @Test
  void savesATextBlockOverTheOneWithItsSeqOrAddsIt() {
    User ada = user("ada");
    ChatTurn t = turn(session(ada, project(ada, "one")), 0);
    ToolCall call = new ToolCall("c1", "read_file", "{}", "text");
    store().appendBlock(t.id(), new TurnBlock.Responding(0, T0, "Hel"));
    store().saveBlock(t.id(), new TurnBlock.Responding(0, T0, "Hello"));
    store().appendBlock(t.id(), new TurnBlock.Tool(1, T0, call));
    store().saveBlock(t.id(), new TurnBlock.Thinking(2, T0, "hm"));
    store().saveBlock(t.id(), new TurnBlock.Thinking(2, T0, "hmm", true));
    ChatTurn back = store().findTurn(t.id()).orElseThrow();
    assertThat(back.blocks()).containsExactly(new TurnBlock.Responding(0, T0, "Hello"),
        new TurnBlock.Tool(1, T0, call), new TurnBlock.Thinking(2, T0, "hmm", true));
    assertThat(back.blocks().get(2).isSuperseded()).isTrue();
    assertThat(back.toolCalls()).containsExactly(call);
    // a saved block is a block: appending its seq again changes nothing
    store().appendBlock(t.id(), new TurnBlock.Thinking(2, T0, "replayed"));
    assertThat(store().findTurn(t.id()).orElseThrow().blocks()).hasSize(3)
        .last().isEqualTo(new TurnBlock.Thinking(2, T0, "hmm", true));
  }

  @Test
  void keepsAThinkingBlocksSignedReasoningUnchanged() {
    User ada = user("ada");
    ChatTurn t = turn(session(ada, project(ada, "one")), 0);
    List<SignedReasoning> signed = List.of(
        new SignedReasoning("anthropic", "hmm", "EqQBCkYIBxgC\"sig\"", null),
        new SignedReasoning("openai-responses", "",  null,
            "{\"type\":\"reasoning\",\"summary\":[],\"encrypted_content\":\"gAAA==\"}"));
    TurnBlock.Thinking block = new TurnBlock.Thinking(0, T0, "hmm", null, signed);
    store().appendBlock(t.id(), block);
    assertThat(store().findTurn(t.id()).orElseThrow().blocks()).containsExactly(block);
    store().saveBlock(t.id(), block.supersede()); // a redone round keeps what it signed
    TurnBlock.Thinking back = (TurnBlock.Thinking) store().findTurn(t.id()).orElseThrow()
        .blocks().get(0);
    assertThat(back.isSuperseded()).isTrue();
    assertThat(back.reasoning()).isEqualTo(signed);
  }

  @Test
  void savingNeverTouchesAToolBlockAndAMissingTurnIsNotFound() {
    User ada = user("ada");
    ChatTurn t = turn(session(ada, project(ada, "one")), 0);
    ToolCall call = new ToolCall("c1", "read_file", "{}", "text");
    store().appendBlock(t.id(), new TurnBlock.Tool(0, T0, call));
    assertThatThrownBy(() -> store().saveBlock(t.id(), new TurnBlock.Responding(0, T0, "x")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().saveBlock(t.id(), new TurnBlock.Tool(1, T0, call)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(store().findTurn(t.id()).orElseThrow().blocks())
        .containsExactly(new TurnBlock.Tool(0, T0, call));
    assertThatThrownBy(() -> store().saveBlock("missing", new TurnBlock.Responding(0, T0, "x")))
        .isInstanceOfSatisfying(StoreException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.NOT_FOUND));
  }

  @Test
  void appendingToAMissingTurnIsNotFound() {
    assertThatThrownBy(() -> store().appendBlock("missing", new TurnBlock.Responding(0, T0, "x")))
        .isInstanceOfSatisfying(StoreException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.NOT_FOUND));
  }

  @Test
  void finalizesOnceAtomically() {
    User ada = user("ada");
    ChatTurn t = turn(session(ada, project(ada, "one")), 0);
    TurnStats stats = new TurnStats(1, 2, 3, 4, 5, 6);
    Instant end = T0.plus(5, ChronoUnit.SECONDS);
    assertThat(store().finalizeTurn(t.id(), TurnStatus.FINISHED, stats, null, end)).isTrue();
    assertThat(store().finalizeTurn(t.id(), TurnStatus.ERROR, TurnStats.EMPTY, "late", end))
        .isFalse();
    ChatTurn back = store().findTurn(t.id()).orElseThrow();
    assertThat(back.status()).isEqualTo(TurnStatus.FINISHED);
    assertThat(back.stats()).isEqualTo(stats);
    assertThat(back.finishedAt()).isEqualTo(end);
    assertThat(back.error()).isNull();
    assertThat(store().finalizeTurn("missing", TurnStatus.ERROR, null, "x", end)).isFalse();
    assertThatThrownBy(
        () -> store().finalizeTurn(t.id(), TurnStatus.PROCESSING, null, null, end))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void concurrentFinalizersHaveExactlyOneWinner() throws Exception {
    User ada = user("ada");
    ChatTurn t = turn(session(ada, project(ada, "one")), 0);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        TurnStatus status = i % 2 == 0 ? TurnStatus.CANCELLED : TurnStatus.INTERRUPTED;
        results.add(pool.submit(() -> store().finalizeTurn(t.id(), status, null, "x", T0)));
      }
      int winners = 0;
      for (Future<Boolean> f : results) {
        winners += f.get() ? 1 : 0;
      }
      assertThat(winners).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void listsASessionsTurnsBySeqAndTheUnfinishedOnes() {
    User ada = user("ada");
    ChatSession s = session(ada, project(ada, "one"));
    ChatTurn second = turn(s, 1);
    ChatTurn first = turn(s, 0);
    ChatTurn third = turn(s, 2);
    store().setTurnDrone(third.id(), "drone-1");
    store().finalizeTurn(first.id(), TurnStatus.FINISHED, null, null, T0);
    assertThat(store().listTurns(s.id())).extracting(ChatTurn::id)
        .containsExactly(first.id(), second.id(), third.id());
    assertThat(store().listUnfinishedTurns()).extracting(ChatTurn::id)
        .containsExactlyInAnyOrder(second.id(), third.id());
    assertThat(store().findTurn(third.id()).orElseThrow().droneId()).isEqualTo("drone-1");
    assertThat(store().listTurns("other")).isEmpty();
  }
}
