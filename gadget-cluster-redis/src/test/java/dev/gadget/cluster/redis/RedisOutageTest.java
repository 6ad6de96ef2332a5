package dev.gadget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** Redis killed and started again: calls fail at once in words, then everything works again. */
class RedisOutageTest {
  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  private static boolean works(Cluster c) {
    try {
      c.locate("x");
      return true;
    } catch (ClusterException e) {
      return false;
    }
  }

  @Test
  void aNodeSaysRedisIsDownWithinItsTimeoutAndRecoversWhenItIsBack() throws Exception {
    try (TestRedis redis = new TestRedis();
        Cluster a = RedisCluster.builder().uri(redis.uri()).nodeId("a")
            .timeout(Duration.ofMillis(500)).build();
        Cluster b = RedisCluster.builder().uri(redis.uri()).nodeId("b")
            .timeout(Duration.ofMillis(500)).build()) {
      List<Long> seen = new CopyOnWriteArrayList<>();
      b.follow("t", -1, e -> seen.add(e.seq()));
      a.append("t", 0, "response", "{}");
      await("the first event", () -> seen.size() == 1);

      redis.kill();
      long start = System.nanoTime();
      assertThatThrownBy(() -> a.acquire("d", Duration.ofSeconds(5)))
          .isInstanceOf(ClusterException.class)
          .hasMessageContaining("Redis at 127.0.0.1:")
          .hasMessageContaining("while this node leased drone d");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
      assertThat(a.reachable()).isFalse();
      assertThat(a.send("b", "k", "", Duration.ofMillis(300)))
          .failsWithin(Duration.ofSeconds(3));

      redis.start();
      await("node a to reach Redis again", () -> works(a));
      await("node b to reach Redis again", () -> works(b));
      assertThat(a.reachable()).isTrue();
      // the restarted Redis kept nothing: the owner appends on from where the turn is
      a.append("t", 1, "response", "{}");
      a.append("t", 2, "response", "{}");
      await("the events after the outage", () -> seen.size() == 3);
      assertThat(seen).containsExactly(0L, 1L, 2L);
      b.receiveMail((from, kind, body) -> "back");
      assertThat(a.send("b", "k", "", Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS))
          .isEqualTo("back");
    }
  }
}
