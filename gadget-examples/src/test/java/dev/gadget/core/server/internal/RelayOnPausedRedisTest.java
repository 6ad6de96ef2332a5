package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.cluster.redis.RedisCluster;
import dev.gadget.cluster.redis.TestRedis;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.Cluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The owner's relay (FeedRelay, gadget-core) on a real redis-server that stops answering
 * ({@code CLIENT PAUSE}) while a drone streams more events than the relay holds: the drone's
 * side is held back instead of losing events, what waits stays within the relay's bound, and
 * once Redis answers again every event reaches another node's reader once, in order. In this
 * module because it needs both gadget-core's relay and gadget-cluster-redis.
 */
class RelayOnPausedRedisTest {
  private static final int EVENTS = 6_000;
  private static final int UNITS = 1_000;

  @Test
  void aRelayFullWhileRedisIsPausedHoldsTheDroneBackAndLosesNothing() throws Exception {
    try (TestRedis redis = new TestRedis();
        Cluster owner = RedisCluster.builder().uri(redis.uri()).nodeId("owner")
            .timeout(Duration.ofMillis(500)).build();
        Cluster reader = RedisCluster.builder().uri(redis.uri()).nodeId("reader").build();
        FeedRelay relay = new FeedRelay(owner, UNITS, Duration.ofSeconds(60))) {
      relay.published("s", Protocol.RESPONSE, List.of(event(0)));
      await("the first event in Redis", () -> reader.read("t", -1, 10).size() == 1);

      RedisClient client = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> admin = client.connect()) {
        admin.sync().clientPause(4_000); // every client waits 4 s: a Redis that hangs
        AtomicInteger published = new AtomicInteger(1);
        int[] most = new int[1];
        Thread drone = new Thread(() -> {
          for (int i = 1; i < EVENTS; i++) {
            relay.published("s", Protocol.RESPONSE, List.of(event(i)));
            published.incrementAndGet();
          }
          relay.published("s", Protocol.WORK_ORDER_COMPLETE, List.of(
              GadgetJson.mapper().createObjectNode().put("turnId", "t")));
        }, "test-drone");
        drone.start();
        await("the drone to be held back", () -> {
          most[0] = Math.max(most[0], relay.taken());
          Thread.State state = drone.getState();
          return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
        });
        assertThat(published.get()).as("events the relay took while Redis hung")
            .isLessThanOrEqualTo(UNITS + 1);
        assertThat(most[0]).as("units waiting at most").isLessThanOrEqualTo(UNITS);

        drone.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(drone.isAlive()).as("the drone goes on once Redis answers").isFalse();
      } finally {
        client.shutdown();
      }
      await("every event in the feed", () -> reader.read("t", -1, EVENTS * 2).size() == EVENTS + 1);
      List<Cluster.FeedEvent> feed = reader.read("t", -1, EVENTS * 2);
      for (int i = 0; i < EVENTS; i++) {
        assertThat(feed.get(i).seq()).isEqualTo((i + 2) * 8L);
        assertThat(GadgetJson.mapper().readTree(feed.get(i).json()).path("seq").asInt())
            .isEqualTo(i);
      }
      assertThat(feed.get(EVENTS).event()).isEqualTo(Protocol.WORK_ORDER_COMPLETE);
      await("the relay's room given back", () -> relay.taken() == 0);
    }
  }

  private static JsonNode event(int seq) {
    return GadgetJson.mapper().createObjectNode().put("turnId", "t").put("seq", seq)
        .put("text", "chunk " + seq + " " + "x".repeat(120));
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }
}
