package dev.gadget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.spi.Cluster;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The Redis cluster with events pushed between nodes ({@link RedisCluster.Builder#peers}) passes
 * the contract against a real redis-server, and a follower gets a turn's events once and in
 * order when some pushes never come: the feed brings those.
 */
class RedisPeersClusterTest extends RedisClusterTest {
  private static final byte[] KEY = "the contract's peer key, 32 bytes".getBytes(
      StandardCharsets.UTF_8);

  @Override
  protected Cluster newNode(String nodeId) {
    return RedisCluster.builder().uri(redis.uri()).nodeId(nodeId).prefix(prefix)
        .peers(new InetSocketAddress("127.0.0.1", 0), KEY).build();
  }

  @Test
  void aFollowerGetsEveryEventOnceInOrderWhenSomePushesNeverCome() {
    try (RedisCluster a = (RedisCluster) newNode("a");
        RedisCluster b = (RedisCluster) newNode("b")) {
      List<Long> got = new CopyOnWriteArrayList<>();
      try (Cluster.Subscription s = b.follow("t1", -1, e -> got.add(e.seq()))) {
        List<Long> sent = new ArrayList<>();
        long previous = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (long seq = 8; sent.size() < 600 || b.pushedEvents() == 0; seq += 8) {
          assertThat(System.nanoTime()).as("pushes arrive").isLessThan(deadline);
          Cluster.FeedAppend e = new Cluster.FeedAppend("t1", seq, "streamChunk",
              "{\"seq\":" + seq + "}");
          if (seq % 56 != 0) { // every seventh push is lost
            a.publishing(e, previous);
          }
          a.appendAll(List.of(e));
          sent.add(seq);
          previous = seq;
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // a turn's pace
        }
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (got.size() < sent.size()) {
          assertThat(System.nanoTime()).as("every event followed").isLessThan(end);
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertThat(got).containsExactlyElementsOf(sent);
        assertThat(b.pushedEvents()).as("some came pushed").isPositive()
            .isLessThan(sent.size());
      }
    }
  }
}
