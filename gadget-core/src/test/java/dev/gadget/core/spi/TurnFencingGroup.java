package dev.gadget.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * The part of {@link ChatStoreContract} about fenced turn writes ({@link ChatStore#claimTurn},
 * the fenced {@code appendBlock}, {@code saveBlock} and {@code finalizeTurn}). On a store that
 * {@linkplain ChatStore#fencesTurns() fences turns}, a write with a smaller fence than the turn
 * holds is refused ({@link StoreException.Reason#FENCED}) and leaves the turn as it was; on one
 * that does not, every test checks instead that the same writes are made as plain ones. Runs as
 * a nested group of the kit.
 */
public abstract class TurnFencingGroup {
  private static final Instant T0 = ChatStoreContract.T0;
  private final ChatStoreContract kit;

  protected TurnFencingGroup(ChatStoreContract kit) {
    this.kit = kit;
  }

  private ChatStore store() {
    return kit.store;
  }

  private ChatTurn newTurn() {
    User ada = kit.user("ada");
    Project p = kit.project(ada, "one");
    return kit.turn(kit.session(ada, p), 0);
  }

  private ChatTurn find(String turnId) {
    return store().findTurn(turnId).orElseThrow();
  }

  private static TurnBlock text(int seq, String content) {
    return new TurnBlock.Responding(seq, T0, content);
  }

  /**
   * On a fencing store, asserts that {@code write} is refused with FENCED, in words that name
   * both fences, and leaves the turn as it was; on another, makes it. Returns whether it was
   * refused.
   */
  private boolean refusedIfFencing(String turnId, long held, long fence, ThrowingCallable write)
      throws Throwable {
    if (!store().fencesTurns()) {
      write.call();
      return false;
    }
    ChatTurn before = find(turnId);
    assertThatThrownBy(write).isInstanceOfSatisfying(StoreException.class, e -> {
      assertThat(e.reason()).isEqualTo(StoreException.Reason.FENCED);
      assertThat(e.isRetryable()).isFalse();
      assertThat(e.getMessage()).isEqualTo("turn " + turnId + " was taken over by another node"
          + " (fence " + held + " > " + fence + "): this write was not made");
    });
    assertThat(find(turnId)).isEqualTo(before);
    return true;
  }

  @Test
  void aGreaterFencesWriteRefusesASmallerOnesLaterBlock() throws Throwable {
    ChatTurn t = newTurn();
    store().appendBlock(t.id(), text(0, "from A"), 1);
    store().appendBlock(t.id(), text(1, "from B"), 2);
    boolean refused = refusedIfFencing(t.id(), 2, 1,
        () -> store().appendBlock(t.id(), text(2, "late from A"), 1));
    assertThat(find(t.id()).blocks()).extracting(TurnBlock::seq)
        .containsExactlyElementsOf(refused ? List.of(0, 1) : List.of(0, 1, 2));
  }

  @Test
  void aGreaterFencesWriteRefusesASmallerOnesSavedBlock() throws Throwable {
    ChatTurn t = newTurn();
    store().saveBlock(t.id(), text(0, "Hel"), 1);
    store().saveBlock(t.id(), text(0, "Hello"), 2);
    boolean refused = refusedIfFencing(t.id(), 2, 1,
        () -> store().saveBlock(t.id(), text(0, "Hello from A"), 1));
    refusedIfFencing(t.id(), 2, 1, () -> store().saveBlock(t.id(), text(1, "more from A"), 1));
    assertThat(find(t.id()).blocks()).containsExactlyElementsOf(refused
        ? List.of(text(0, "Hello"))
        : List.of(text(0, "Hello from A"), text(1, "more from A")));
  }

  @Test
  void aGreaterFencesWriteRefusesASmallerOnesEnd() throws Throwable {
    ChatTurn t = newTurn();
    store().appendBlock(t.id(), text(0, "from B"), 2);
    TurnStats stats = new TurnStats(1, 2, 3, 4, 5, 6);
    boolean[] ended = {false};
    boolean refused = refusedIfFencing(t.id(), 2, 1, () -> ended[0] = store().finalizeTurn(
        t.id(), TurnStatus.INTERRUPTED, null, "node A lost its drone", T0, 1));
    assertThat(ended[0]).isEqualTo(!refused);
    assertThat(store().finalizeTurn(t.id(), TurnStatus.FINISHED, stats, null, T0, 2))
        .isEqualTo(refused);
    ChatTurn back = find(t.id());
    assertThat(back.status()).isEqualTo(refused ? TurnStatus.FINISHED : TurnStatus.INTERRUPTED);
    assertThat(back.error()).isEqualTo(refused ? null : "node A lost its drone");
    assertThat(back.blocks()).containsExactly(text(0, "from B"));
  }

  /**
   * On a fencing store asserts that a claim of {@code fence} by {@code holder} is refused for
   * that very number, claimed by another node or written without a claim; elsewhere makes it.
   */
  private void claimRefusedIfFencing(String turnId, long fence, String holder) {
    if (!store().fencesTurns()) {
      store().claimTurn(turnId, fence, holder);
      return;
    }
    ChatTurn before = find(turnId);
    assertThatThrownBy(() -> store().claimTurn(turnId, fence, holder))
        .isInstanceOfSatisfying(StoreException.class, e -> {
          assertThat(e.reason()).isEqualTo(StoreException.Reason.FENCED);
          assertThat(e.heldFence()).isEqualTo(fence);
          assertThat(e.getMessage()).isEqualTo("turn " + turnId + " was taken over by another"
              + " node (fence " + fence + ", claimed by that node first): this write was not made");
        });
    assertThat(find(turnId)).isEqualTo(before);
  }

  @Test
  void aClaimTakesItsVeryFenceOnlyFromTheHolderThatClaimedIt() throws Throwable {
    ChatTurn t = newTurn();
    store().claimTurn(t.id(), 5, "node-a");
    store().claimTurn(t.id(), 5, "node-a"); // the same node again: taken
    claimRefusedIfFencing(t.id(), 5, "node-b");
    store().appendBlock(t.id(), text(0, "from A"), 5); // a write names no holder: taken
    store().claimTurn(t.id(), 6, "node-b");
    refusedIfFencing(t.id(), 6, 5, () -> store().appendBlock(t.id(), text(1, "late"), 5));
    claimRefusedIfFencing(t.id(), 6, "node-a");
    store().appendBlock(t.id(), text(1, "from B"), 6);
    assertThat(store().finalizeTurn(t.id(), TurnStatus.FINISHED, null, null, T0, 6)).isTrue();
    assertThat(find(t.id()).blocks()).extracting(TurnBlock::seq).containsExactly(0, 1);
  }

  @Test
  void aClaimIsRefusedTheFenceAWriteRaisedWithoutAClaim() throws Throwable {
    ChatTurn t = newTurn();
    store().appendBlock(t.id(), text(0, "from A"), 3);
    claimRefusedIfFencing(t.id(), 3, "node-b");
    store().claimTurn(t.id(), 4, "node-b");
    boolean refused = refusedIfFencing(t.id(), 4, 3,
        () -> store().appendBlock(t.id(), text(1, "late from A"), 3));
    assertThat(find(t.id()).blocks()).extracting(TurnBlock::seq)
        .containsExactlyElementsOf(refused ? List.of(0) : List.of(0, 1));
    assertThatThrownBy(() -> store().claimTurn("no-such-turn", 1, "node-b"))
        .isInstanceOfSatisfying(StoreException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.NOT_FOUND));
  }

  @Test
  void theSameFenceWritesAgainAndAGreaterOneIsAcceptedAndKept() throws Throwable {
    ChatTurn t = newTurn();
    ToolCall call = new ToolCall("c1", "read_file", "{}", "text");
    store().appendBlock(t.id(), text(0, "one"), 5);
    store().appendBlock(t.id(), new TurnBlock.Tool(1, T0, call), 5);
    store().saveBlock(t.id(), new TurnBlock.Thinking(2, T0, "hm"), 5);
    store().saveBlock(t.id(), new TurnBlock.Thinking(2, T0, "hmm"), 5);
    store().appendBlock(t.id(), text(3, "two"), 7);
    // the write with 7 raised the turn's fence: 6 is now behind
    refusedIfFencing(t.id(), 7, 6, () -> store().appendBlock(t.id(), text(4, "six"), 6));
    store().appendBlock(t.id(), text(5, "seven"), 7);
    assertThat(store().finalizeTurn(t.id(), TurnStatus.FINISHED, null, null, T0, 7)).isTrue();
    ChatTurn back = find(t.id());
    assertThat(back.blocks()).extracting(TurnBlock::seq).contains(0, 1, 2, 3, 5);
    assertThat(back.blocks().get(2)).isEqualTo(new TurnBlock.Thinking(2, T0, "hmm"));
    assertThat(back.toolCalls()).containsExactly(call);
    assertThat(back.status()).isEqualTo(TurnStatus.FINISHED);
  }

  @Test
  void claimingATurnRefusesTheOlderWritersNextWrite() throws Throwable {
    ChatTurn t = newTurn();
    store().claimTurn(t.id(), 1);
    store().appendBlock(t.id(), text(0, "from A"), 1);
    store().claimTurn(t.id(), 2);
    store().claimTurn(t.id(), 2);
    boolean refused = refusedIfFencing(t.id(), 2, 1,
        () -> store().appendBlock(t.id(), text(1, "late from A"), 1));
    refusedIfFencing(t.id(), 2, 1, () -> store().claimTurn(t.id(), 1));
    store().appendBlock(t.id(), text(2, "from B"), 2);
    store().claimTurn(t.id(), 3);
    refusedIfFencing(t.id(), 3, 2, () -> store().appendBlock(t.id(), text(3, "late B"), 2));
    assertThat(find(t.id()).blocks()).extracting(TurnBlock::seq)
        .containsExactlyElementsOf(refused
            ? List.of(0, 2) : List.of(0, 1, 2, 3));
    assertThat(find(t.id()).status()).isEqualTo(TurnStatus.PROCESSING);
  }

  @Test
  void racingClaimsLeaveTheTurnHoldingTheGreatestFence() throws Throwable {
    ChatTurn t = newTurn();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> claims = new ArrayList<>();
      for (long f = 16; f >= 1; f--) {
        long fence = f;
        claims.add(pool.submit(() -> {
          try {
            store().claimTurn(t.id(), fence);
          } catch (StoreException e) {
            assertThat(e.reason()).isEqualTo(StoreException.Reason.FENCED);
          }
        }));
      }
      for (Future<?> claim : claims) {
        claim.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    refusedIfFencing(t.id(), 16, 15, () -> store().appendBlock(t.id(), text(0, "15"), 15));
    store().appendBlock(t.id(), text(1, "16"), 16);
    assertThat(find(t.id()).blocks()).contains(text(1, "16"));
  }

  @Test
  void aMissingTurnIsNotFoundAndItsEndIsFalse() {
    TurnBlock b = text(0, "x");
    for (ThrowingCallable write : List.<ThrowingCallable>of(
        () -> store().claimTurn("missing", 1),
        () -> store().appendBlock("missing", b, 1),
        () -> store().saveBlock("missing", b, 1))) {
      assertThatThrownBy(write).isInstanceOfSatisfying(StoreException.class,
          e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.NOT_FOUND));
    }
    assertThat(store().finalizeTurn("missing", TurnStatus.ERROR, null, "x", T0, 1)).isFalse();
  }

  @Test
  void plainWritesNeitherCheckNorChangeTheFence() throws Throwable {
    ChatTurn t = newTurn();
    store().claimTurn(t.id(), 5);
    store().appendBlock(t.id(), text(0, "plain"));
    store().saveBlock(t.id(), text(1, "plain saved"));
    store().setTurnDrone(t.id(), "drone-1");
    refusedIfFencing(t.id(), 5, 4, () -> store().appendBlock(t.id(), text(2, "old"), 4));
    store().appendBlock(t.id(), text(3, "current"), 5);
    assertThat(store().finalizeTurn(t.id(), TurnStatus.CANCELLED, null, null, T0)).isTrue();
    ChatTurn back = find(t.id());
    assertThat(back.blocks()).extracting(TurnBlock::seq).contains(0, 1, 3);
    assertThat(back.status()).isEqualTo(TurnStatus.CANCELLED);
    assertThat(back.droneId()).isEqualTo("drone-1");
  }

  @Test
  void endingAnEndedTurnWithTheCurrentFenceIsFalse() throws Throwable {
    ChatTurn t = newTurn();
    store().claimTurn(t.id(), 3);
    assertThat(store().finalizeTurn(t.id(), TurnStatus.FINISHED, null, null, T0, 3)).isTrue();
    assertThat(store().finalizeTurn(t.id(), TurnStatus.ERROR, null, "again", T0, 3)).isFalse();
    assertThat(store().finalizeTurn(t.id(), TurnStatus.ERROR, null, "again", T0, 4)).isFalse();
    boolean[] ended = {false};
    refusedIfFencing(t.id(), 3, 2, () -> ended[0] = store().finalizeTurn(
        t.id(), TurnStatus.ERROR, null, "older", T0, 2));
    assertThat(ended[0]).as("an ended turn is never ended again").isFalse();
    ChatTurn back = find(t.id());
    assertThat(back.status()).isEqualTo(TurnStatus.FINISHED);
    assertThat(back.error()).isNull();
  }

  @Test
  void aReplayedBlockIsIgnoredAndAToolBlockNeverSavedOverUnderTheCurrentFence() {
    ChatTurn t = newTurn();
    ToolCall call = new ToolCall("c1", "read_file", "{}", "text");
    store().appendBlock(t.id(), text(0, "first"), 2);
    store().appendBlock(t.id(), text(0, "replayed"), 2);
    store().appendBlock(t.id(), new TurnBlock.Tool(1, T0, call), 2);
    assertThatThrownBy(() -> store().saveBlock(t.id(), text(1, "over the tool"), 2))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().saveBlock(t.id(), new TurnBlock.Tool(2, T0, call), 2))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(find(t.id()).blocks()).containsExactly(text(0, "first"),
        new TurnBlock.Tool(1, T0, call));
  }

  @Test
  void aTurnDeletedWithItsSessionOrProjectTakesItsFenceAlong() {
    User ada = kit.user("ada");
    Project p = kit.project(ada, "one");
    ChatSession s = kit.session(ada, p);
    ChatTurn t = kit.turn(s, 0);
    store().claimTurn(t.id(), 9);
    assertThat(store().deleteSession(s.id())).isTrue();
    store().createSession(s);
    store().createTurn(t);
    store().appendBlock(t.id(), text(0, "after the session's deletion"), 1);
    store().claimTurn(t.id(), 9);
    assertThat(store().deleteProject(p.id())).isTrue();
    store().createProject(p);
    store().createSession(s);
    store().createTurn(t);
    store().appendBlock(t.id(), text(0, "after the project's deletion"), 1);
    assertThat(find(t.id()).blocks()).containsExactly(text(0, "after the project's deletion"));
  }
}
