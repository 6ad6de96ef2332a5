package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.server.ServerListener;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ForwardingCluster;
import dev.gadget.core.store.InMemoryChatStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
    ServerSettings settings = new ServerSettings(new InMemoryChatStore(), Clock.systemUTC(),
        s -> null, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30),
        Duration.ofSeconds(30), new ServerListener() {}, null, null, null);
    WatcherRooms rooms = new WatcherRooms();
    DroneRouter router = new DroneRouter();
    Cluster cluster = hub.join("a");
    node = ClusterNode.join(settings, cluster, router,
        new LiveTurns(settings, timer, rooms, router), rooms, timer);
    ChatTurn turn = ChatTurn.start("t1", "s1", "u1", 0, "hello", null, Instant.now());
    assertThat(node.claimChat("s1", "t1")).isTrue();

    // the turn ended: it is no longer live here, and its release has not run yet
    node.renew();
    node.releaseChat(turn);

    assertThat(cluster.chatClaim("s1")).isEmpty();
    assertThat(node.claimChat("s1", "t2")).as("the next turn of the chat starts").isTrue();
  }

  @Test
  void aTurnEndingWhileItsClaimIsRenewedIsNotClaimedAgain() {
    ServerSettings settings = new ServerSettings(new InMemoryChatStore(), Clock.systemUTC(),
        s -> null, Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30),
        Duration.ofSeconds(30), new ServerListener() {}, null, null, null);
    WatcherRooms rooms = new WatcherRooms();
    DroneRouter router = new DroneRouter();
    LiveTurns turns = new LiveTurns(settings, timer, rooms, router);
    ChatTurn turn = ChatTurn.start("t1", "s1", "u1", 0, "hello", null, Instant.now());
    Cluster joined = hub.join("a");
    Cluster cluster = new ForwardingCluster(joined) {
      @Override
      public boolean renewChat(String sessionId, String turnId, Duration ttl) {
        // the turn ends here, between the renewal's look at the live turns and its command
        turns.unreserve("s1");
        node.releaseChat(turn);
        return delegate.renewChat(sessionId, turnId, ttl);
      }
    };
    node = ClusterNode.join(settings, cluster, router, turns, rooms, timer);
    turns.reserve("s1"); // a turn of the chat is starting here: its claim is renewed
    assertThat(node.claimChat("s1", "t1")).isTrue();

    node.renew();

    assertThat(joined.chatClaim("s1")).as("the ended turn's claim").isEmpty();
  }
}
