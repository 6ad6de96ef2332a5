package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.cluster.redis.RedisCluster;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ForwardingCluster;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A node that takes a turn over claims it in the store once it has leased the drone
 * (docs/CLUSTER.md, "Fencing"); an end by the node the drone left that lands between that lease
 * and the claim is the one end of the turn: the new node claims it, sees it ended, runs nothing
 * of it and tells the drone to stop it. Two servers on one store and a real redis-server; node
 * B's lease of the drone stores the old node's end before it returns.
 */
class TurnClaimRedisTest extends RedisNodesTestBase {
  private static final int A = 0;
  private static final int B = 1;
  private volatile Runnable onLease = () -> {};

  @Override
  Cluster cluster(int node, RedisCluster redisNode) {
    return node != B ? redisNode : new ForwardingCluster(redisNode) {
      @Override
      public Lease acquire(String droneId, Duration ttl) {
        Lease lease = super.acquire(droneId, ttl);
        onLease.run();
        return lease;
      }
    };
  }

  @Test
  void anEndThatLandsBetweenTheNewNodesLeaseAndItsClaimStandsAndTheDroneStopsTheTurn()
      throws Exception {
    start(2);
    Connection onA = drone(A);
    awaitDrones(1);
    String turn = streamedTurn(page(B), orders, onA, 10);

    onLease = () -> fx.store.finalizeTurn(turn, TurnStatus.INTERRUPTED, TurnStats.EMPTY,
        "ended by the node the drone left", Instant.now()); // once: the turn ends once
    onA.disconnect();
    BlockingQueue<String> cancels = new LinkedBlockingQueue<>();
    BlockingQueue<String> resumes = new LinkedBlockingQueue<>();
    Connection onB = rawDrone(B, "ws-0", turn, new TransportClient.ClientListener() {}, c -> {
      c.on(Protocol.CANCEL_WORK_ORDER, (args, ack) -> cancels.add(args.get(0).get("turnId")
          .asText()));
      c.on(Protocol.RESUME_STREAM, (args, ack) -> resumes.add(args.get(0).get("turnId")
          .asText()));
    });
    assertThat(cancels.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("node B tells the drone to stop the ended turn").isEqualTo(turn);
    onB.emitWithAck(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 10, TurnStatus.CANCELLED, TurnStats.EMPTY, null, null)), RuntimeFixture.WAIT)
        .get(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(resumes).as("node B asks for none of the turn's events").isEmpty();
    assertThat(stored(turn)).as("the one end of the turn").isEqualTo(TurnStatus.INTERRUPTED);
    assertThat(storedText(turn)).isEqualTo(expected(10));
  }
}
