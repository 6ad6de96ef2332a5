package dev.gadget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.Cluster.FeedAppend;
import dev.gadget.core.spi.Cluster.FeedEvent;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a batch of feed events is in a real Redis: one stream entry per feed of the batch (split
 * only past the bounds), no script, and readers from any number in the middle of an entry.
 */
class FeedLayoutTest {
  private static TestRedis redis;
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;

  @BeforeAll
  static void start() throws Exception {
    redis = new TestRedis();
    client = RedisClient.create(redis.uri());
    connection = client.connect();
  }

  @AfterAll
  static void stop() throws Exception {
    connection.close();
    client.shutdown();
    redis.close();
  }

  private static List<FeedAppend> events(String feed, int from, int n) {
    List<FeedAppend> list = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      list.add(new FeedAppend(feed, i, "response", "{\"i\":" + i + "}"));
    }
    return list;
  }

  @Test
  void aBatchIsOneEntryPerFeedWithoutLuaAndReadersDropWhatTheyHave() {
    RedisCommands<String, String> r = connection.sync();
    try (Cluster a = RedisCluster.builder().uri(redis.uri()).nodeId("a").prefix("l1:").build();
        Cluster b = RedisCluster.builder().uri(redis.uri()).nodeId("b").prefix("l1:").build()) {
      r.configResetstat();
      List<FeedAppend> batch = new ArrayList<>(events("t1", 0, 200));
      batch.addAll(events("t2", 0, 100));
      boolean[] appended = a.appendAll(batch);
      assertThat(appended).containsOnly(true);
      assertThat(r.xlen("l1:turn:t1")).isEqualTo(1);
      assertThat(r.xlen("l1:turn:t2")).isEqualTo(1);
      assertThat(r.pttl("l1:turn:t1")).isPositive();
      String stats = r.info("commandstats");
      assertThat(stats).doesNotContain("cmdstat_evalsha").doesNotContain("cmdstat_eval:");
      assertThat(stats).contains("cmdstat_xadd:calls=2,").contains("cmdstat_pexpire:calls=2,");

      // the next batch overlaps: the repeats are answered as such and readers get each once
      boolean[] next = a.appendAll(events("t1", 150, 100));
      assertThat(next).containsExactly(concat(new boolean[50], true, 50));
      assertThat(r.xlen("l1:turn:t1")).isEqualTo(2);
      assertThat(b.appendAll(events("t1", 100, 50))).as("another node's repeats").containsOnly(false);
      List<FeedEvent> read = b.read("t1", 120, 1_000);
      assertThat(read).extracting(FeedEvent::seq).containsExactlyElementsOf(range(121, 250));
      assertThat(b.read("t1", 120, 7)).extracting(FeedEvent::seq)
          .containsExactlyElementsOf(range(121, 128));

      List<Long> seen = new CopyOnWriteArrayList<>();
      try (Cluster.Subscription s = b.follow("t1", 175, e -> seen.add(e.seq()))) {
        a.appendAll(events("t1", 240, 20));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (seen.size() < 84 && System.nanoTime() < deadline) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
      }
      assertThat(seen).containsExactlyElementsOf(range(176, 260));
    }
  }

  @Test
  void anEntryNeverExceedsTheBound() {
    RedisCommands<String, String> r = connection.sync();
    try (Cluster a = RedisCluster.builder().uri(redis.uri()).nodeId("a").prefix("l2:").build()) {
      String third = "x".repeat(Cluster.MAX_MESSAGE_CHARS / 3);
      List<FeedAppend> batch = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        batch.add(new FeedAppend("t", i, "response", third));
      }
      assertThat(a.appendAll(batch)).containsOnly(true);
      assertThat(r.xlen("l2:turn:t")).isEqualTo(3);
      assertThat(a.read("t", -1, 10)).hasSize(5);
    }
  }

  private static List<Long> range(long from, long to) {
    List<Long> list = new ArrayList<>();
    for (long i = from; i < to; i++) {
      list.add(i);
    }
    return list;
  }

  private static boolean[] concat(boolean[] head, boolean value, int n) {
    boolean[] all = new boolean[head.length + n];
    System.arraycopy(head, 0, all, 0, head.length);
    for (int i = head.length; i < all.length; i++) {
      all[i] = value;
    }
    return all;
  }
}
