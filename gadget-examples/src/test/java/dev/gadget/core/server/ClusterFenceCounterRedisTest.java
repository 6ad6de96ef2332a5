package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.cluster.redis.RedisCluster;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The store's fences outlive Redis's fencing counter (docs/CLUSTER.md, "Fencing"): Redis
 * restarted without its data hands out small numbers again, below the fence a running turn holds
 * in the store. The node that runs the turn writes on with the fence its writes carried; the node
 * its drone then goes to has its claim of the turn refused once, numbers its lease again above
 * the store's fence, and takes the turn over: the turn is not let go, the drone not dropped. Two
 * servers on one store and a real redis-server, restarted empty mid-turn.
 */
class ClusterFenceCounterRedisTest extends RedisNodesTestBase {
  private static final int A = 0;
  private static final int B = 1;
  private final List<Cluster> clusters = new ArrayList<>();
  private volatile boolean droppedByB;

  @Override
  Cluster cluster(int node, RedisCluster redisNode) {
    clusters.add(redisNode);
    return redisNode;
  }

  @Test
  void aTurnIsTakenOverAfterRedisRestartedEmptyBelowTheStoresFence() throws Exception {
    start(2);
    for (int i = 0; i < 20; i++) { // the counter well above what it starts from again
      clusters.get(B).release(clusters.get(B).acquire("someone-else-" + i, Duration.ofSeconds(1)));
    }
    Connection onA = rawDrone(A, "ws-1", null, new TransportClient.ClientListener() {}, c -> c.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
      orders.add(args.get(0).get("workOrder").get("chatTurn").get("_id").asText());
      ack.send(Protocol.args(new dev.gadget.core.protocol.Payloads.WorkOrderAck(true, null)));
    }));
    awaitDrones(1);
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();
    long before = fence(droneId);
    Page page = page(B);
    String turn = streamedTurn(page, orders, onA, 50);

    redis.kill();
    redis.start(); // empty: the fencing counter starts from nothing again
    await("the drone leased again", () -> fence(droneId) > 0);
    assertThat(fence(droneId)).as("the counter Redis lost").isLessThan(before);

    tokens(onA, turn, 50, 60); // A's writes carry the fence they carried before
    await("the next tokens stored", () -> storedText(turn).equals(expected(60)));

    // the drone goes to node B, which leases it with a number below the turn's fence
    onA.disconnect();
    BlockingQueue<String> resumes = new LinkedBlockingQueue<>();
    Connection onB = rawDrone(B, "ws-1", turn, new TransportClient.ClientListener() {
      @Override
      public void onDisconnect(Connection connection, String reason, boolean willReconnect) {
        droppedByB = true;
      }
    }, c -> c.on(Protocol.RESUME_STREAM, (args, ack) -> resumes.add(args.get(0).get("turnId")
        .asText())));
    assertThat(resumes.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("node B takes the turn over").isEqualTo(turn);
    onB.emit(Protocol.STREAM_REPLAY, Protocol.args(new ResumePayloads.StreamReplay(turn, 0,
        true)));
    tokens(onB, turn, 0, 100);
    end(onB, turn);
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    await("the end stored", () -> stored(turn) == TurnStatus.FINISHED);
    assertThat(storedText(turn)).isEqualTo(expected(100));
    assertThat(page.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
    assertThat(droppedByB).as("the drone's socket dropped by node B").isFalse();
    assertThat(fence(droneId)).as("B's lease numbered again above the store's fence")
        .isGreaterThan(before);
  }

  /** The fence of the drone's lease, as node B sees it; -1 while none (or Redis is away). */
  private long fence(String droneId) {
    try {
      return clusters.get(B).locate(droneId).map(Cluster.Lease::fence).orElse(-1L);
    } catch (ClusterException e) {
      return -1;
    }
  }
}
