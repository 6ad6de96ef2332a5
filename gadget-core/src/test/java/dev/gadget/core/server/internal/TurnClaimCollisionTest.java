package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.InMemoryChatStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Two nodes that came to one fencing number for a turn: node A claimed it while the cluster was
 * away (the store's fence plus one), and node B, which the drone connected to, claims it with
 * that same number (the next one the cluster hands out, or the store's fence plus one read just
 * before A's claim). B's claim must win above A's, so that A's end of the turn, with the number
 * it claimed, is refused; taken as equal, both would write and A would end B's running turn.
 */
class TurnClaimCollisionTest extends ClusterNodeFixture {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  @Test
  void aLeaseNumberedAsAnotherNodesClaimIsNumberedAgainAboveIt() {
    InMemoryChatStore store = new InMemoryChatStore();
    LiveTurns turns = nodeB(store);
    LiveTurn t = turns.start(turn(store), null, "d1");
    store.claimTurn("t1", 1, "node-a"); // A, while the cluster was away: the store's 0 plus one
    node.droneConnected(connectedDrone("d1"));
    assertThat(node.lease("d1").fence()).as("the cluster's next number").isEqualTo(1);

    assertThat(turns.fence.endedBeforeClaim(t)).isFalse();

    assertThat(t.letGo).as("B goes on with the turn").isFalse();
    assertThat(node.lease("d1").fence()).as("numbered again above A's claim").isGreaterThan(1);
    assertEndByARefused(store);
  }

  @Test
  void twoClaimsWhileTheClusterIsAwayAtOneNumberLeaveTheDronesNodeAbove() {
    InMemoryChatStore memory = new InMemoryChatStore();
    AtomicBoolean aClaimsNext = new AtomicBoolean(true);
    ChatStore store = (ChatStore) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {ChatStore.class}, (proxy, method, args) -> {
          Object result;
          try {
            result = method.invoke(memory, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          // B has just read the store's fence (a claim at 0 tells it): A claims that plus one
          if (method.getName().equals("claimTurn") && args.length == 2
              && (long) args[1] == 0 && aClaimsNext.getAndSet(false)) {
            memory.claimTurn("t1", 1, "node-a");
          }
          return result;
        });
    LiveTurns turns = nodeB(store);
    LiveTurn t = turns.start(turn(memory), null, "d1"); // the drone is not leased: Redis away

    assertThat(turns.fence.endedBeforeClaim(t)).isFalse();

    assertThat(aClaimsNext).as("A claimed between B's read and B's claim").isFalse();
    assertThat(t.letGo).as("B goes on with the turn").isFalse();
    assertThat(t.fence).as("B claimed above A's number").isEqualTo(2);
    assertEndByARefused(memory);
  }

  /** Node B of the cluster, on {@code store}; its live turns. */
  private LiveTurns nodeB(ChatStore store) {
    ServerSettings settings = settings(store);
    LiveTurns turns = liveTurns(settings);
    join(settings, hub.join("node-b"), turns);
    return turns;
  }

  private static ChatTurn turn(InMemoryChatStore store) {
    ChatTurn turn = ChatTurn.start("t1", "s1", "u1", 0, "go", "build", T0);
    store.createTurn(turn);
    return turn;
  }

  /** A, which lost the drone and cannot ask the cluster, ends the turn with its claim's number. */
  private static void assertEndByARefused(InMemoryChatStore store) {
    assertThatThrownBy(() -> store.finalizeTurn("t1", TurnStatus.INTERRUPTED, null,
        "node A's grace period ended", T0, 1))
        .isInstanceOfSatisfying(StoreException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.FENCED));
    assertThat(store.findTurn("t1").map(ChatTurn::status)).contains(TurnStatus.PROCESSING);
  }
}
