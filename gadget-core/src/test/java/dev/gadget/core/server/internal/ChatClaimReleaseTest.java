package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ForwardingCluster;
import dev.gadget.core.store.InMemoryChatStore;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A turn's end frees its chat on every node even when the claims' renewal runs in the instant
 * between the turn leaving the live turns and its chat's release: the renewal must not take
 * the claim from this node's hands and leave it in the cluster, where it refused the page's
 * next prompt ("a turn is already running") until it expired.
 */
class ChatClaimReleaseTest extends ClusterNodeFixture {
  @Test
  void aRenewalBetweenATurnsEndAndItsReleaseLeavesNoClaimBehind() {
    ServerSettings settings = settings(new InMemoryChatStore());
    Cluster cluster = hub.join("a");
    join(settings, cluster, liveTurns(settings));
    ChatTurn turn = ChatTurn.start("t1", "s1", "u1", 0, "hello", null, Instant.now());
    assertThat(node.claimChat("s1", "t1")).isTrue();

    // the turn ended: it is no longer live here, and its release has not run yet
    node.renew();
    node.releaseChat(turn);

    assertThat(cluster.chatClaim("s1")).isEmpty();
    assertThat(node.claimChat("s1", "t2")).as("the next turn of the chat starts").isTrue();
  }

  @Test
  void aTurnEndingWhileItsClaimIsRenewedIsNotClaimedAgain() throws Exception {
    ServerSettings settings = settings(new InMemoryChatStore());
    LiveTurns turns = liveTurns(settings);
    ChatTurn turn = ChatTurn.start("t1", "s1", "u1", 0, "hello", null, Instant.now());
    Cluster joined = hub.join("a");
    Thread[] ending = new Thread[1];
    Cluster cluster = new ForwardingCluster(joined) {
      @Override
      public boolean renewChat(String sessionId, String turnId, Duration ttl) {
        // the turn ends now, between the renewal's look at the live turns and its command
        turns.unreserve("s1");
        // the release runs, or waits for the renewal to finish
        ending[0] = runUntilBlocked(() -> node.releaseChat(turn));
        return delegate.renewChat(sessionId, turnId, ttl);
      }
    };
    join(settings, cluster, turns);
    turns.reserve("s1"); // a turn of the chat is starting here: its claim is renewed
    assertThat(node.claimChat("s1", "t1")).isTrue();

    node.renew();
    ending[0].join(TimeUnit.SECONDS.toMillis(10));

    assertThat(ending[0].isAlive()).isFalse();
    assertThat(joined.chatClaim("s1")).as("the ended turn's claim").isEmpty();
  }

  @Test
  void aTurnTakenOverAfterItEndedLeavesItsChatFree() {
    InMemoryChatStore store = new InMemoryChatStore();
    ServerSettings settings = settings(store);
    LiveTurns turns = liveTurns(settings);
    Cluster cluster = hub.join("b");
    join(settings, cluster, turns);
    ChatTurn turn = ChatTurn.start("t1", "s1", "u1", 0, "hello", null, Instant.now());
    store.createTurn(turn);
    // node b takes the turn over (its drone connected here), as node a ends it
    LiveTurn t = turns.start(turn, null, "d1");
    node.adopted(turn);
    store.finalizeTurn("t1", TurnStatus.FINISHED, null, null, Instant.now(), 0);
    node.droneConnected(connectedDrone("d1")); // claims the chat for it again
    assertThat(cluster.chatClaim("s1")).contains("t1");

    assertThat(turns.fence.endedBeforeClaim(t)).isTrue();

    assertThat(cluster.chatClaim("s1")).as("the ended turn's claim").isEmpty();
  }
}
