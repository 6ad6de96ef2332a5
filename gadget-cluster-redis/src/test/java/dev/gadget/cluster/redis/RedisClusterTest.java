package dev.gadget.cluster.redis;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterContract;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** The Redis cluster passes the contract against a real redis-server; each test its own keys. */
class RedisClusterTest extends ClusterContract {
  private static final AtomicInteger TESTS = new AtomicInteger();
  static TestRedis redis;
  String prefix;

  @BeforeAll
  static void startRedis() throws Exception {
    redis = new TestRedis();
  }

  @AfterAll
  static void stopRedis() throws Exception {
    redis.close();
  }

  @BeforeEach
  void freshKeys() {
    prefix = "test" + TESTS.incrementAndGet() + ":";
  }

  @Override
  protected Cluster newNode(String nodeId) {
    return RedisCluster.builder().uri(redis.uri()).nodeId(nodeId).prefix(prefix).build();
  }
}
