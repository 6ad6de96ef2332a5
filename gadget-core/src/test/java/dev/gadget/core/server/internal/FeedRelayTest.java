package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import dev.gadget.core.spi.ForwardingCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The relay sends what waits in batches, in order, and a batch the cluster missed again whole. */
class FeedRelayTest {
  private final InProcessCluster hub = new InProcessCluster();
  private final Flaky owner = new Flaky(hub.join("owner"));
  private final Cluster reader = hub.join("reader");

  @AfterEach
  void close() {
    hub.close();
  }

  @Test
  void eventsWaitingForAnAbsentClusterGoInOrderInBatchesOnceItIsBack() {
    int events = 2_000;
    try (FeedRelay relay = new FeedRelay(owner)) {
      owner.away = true;
      for (int i = 0; i < events; i++) {
        relay.published("s", Protocol.RESPONSE, List.of(event("t", i)));
      }
      relay.published("s", Protocol.WORK_ORDER_COMPLETE, List.of(
          GadgetJson.mapper().createObjectNode().put("turnId", "t")));
      await("a batch the cluster refused", () -> !owner.refused.isEmpty());
      owner.away = false;
      await("every event in the feed", () -> reader.read("t", -1, 5_000).size() == events + 1);
    }
    List<Cluster.FeedEvent> feed = reader.read("t", -1, 5_000);
    for (int i = 0; i < events; i++) {
      assertThat(feed.get(i).seq()).isEqualTo((i + 2) * 8L);
    }
    assertThat(feed.get(events).event()).isEqualTo(Protocol.WORK_ORDER_COMPLETE);
    assertThat(owner.sizes).allMatch(n -> n <= FeedRelay.BATCH);
    assertThat(owner.sizes).as("batches, not one call an event").hasSizeLessThan(events / 10);
    assertThat(owner.refused.get(0)).as("the refused batch is sent again whole")
        .isEqualTo(owner.sizes.get(0));
    assertThat(owner.ended).isTrue();
  }

  @Test
  void aFullRelayHoldsThePublisherBackWithinItsBoundAndLosesNothing() throws Exception {
    int events = 5_000;
    int units = 1_000;
    try (FeedRelay relay = new FeedRelay(owner, units, Duration.ofSeconds(30))) {
      owner.paused = true; // every append waits, as for a Redis that does not answer
      AtomicInteger published = new AtomicInteger();
      int[] most = new int[1];
      Thread drone = new Thread(() -> {
        for (int i = 0; i < events; i++) {
          relay.published("s", Protocol.RESPONSE, List.of(event("t", i)));
          published.incrementAndGet();
        }
        relay.published("s", Protocol.WORK_ORDER_COMPLETE, List.of(
            GadgetJson.mapper().createObjectNode().put("turnId", "t")));
      }, "test-drone");
      drone.start();
      await("the publisher to be held back", () -> {
        most[0] = Math.max(most[0], relay.taken());
        return drone.getState() == Thread.State.WAITING
            || drone.getState() == Thread.State.TIMED_WAITING;
      });
      int held = published.get();
      assertThat(held).as("events taken before the relay was full").isLessThan(units + 1);
      assertThat(relay.taken()).isLessThanOrEqualTo(units);
      assertThat(most[0]).isLessThanOrEqualTo(units);
      owner.paused = false;
      drone.join(TimeUnit.SECONDS.toMillis(20));
      assertThat(drone.isAlive()).isFalse();
      await("every event in the feed", () -> reader.read("t", -1, 10_000).size() == events + 1);
      await("the room given back", () -> relay.taken() == 0);
    }
    List<Cluster.FeedEvent> feed = reader.read("t", -1, 10_000);
    for (int i = 0; i < events; i++) {
      assertThat(feed.get(i).seq()).isEqualTo((i + 2) * 8L);
    }
  }

  @Test
  void aPublisherWaitsForRoomAtMostItsBoundThenTheEventIsDropped() {
    try (FeedRelay relay = new FeedRelay(owner, 10, Duration.ofMillis(300))) {
      owner.paused = true;
      long start = System.nanoTime();
      for (int i = 0; i < 12; i++) {
        relay.published("s", Protocol.RESPONSE, List.of(event("t", i)));
      }
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThan(Duration.ofSeconds(5));
      assertThat(relay.taken()).isLessThanOrEqualTo(10);
      owner.paused = false;
    }
  }

  private static JsonNode event(String turnId, int seq) {
    return GadgetJson.mapper().createObjectNode().put("turnId", turnId).put("seq", seq)
        .put("text", "chunk " + seq);
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  /** A node whose backend can be made absent; records the sizes of the batches appended. */
  private static final class Flaky extends ForwardingCluster {
    volatile boolean away;
    /** While set, appends wait (a backend that does not answer). */
    volatile boolean paused;
    volatile boolean ended;
    final List<Integer> sizes = new CopyOnWriteArrayList<>();
    final List<Integer> refused = new CopyOnWriteArrayList<>();

    Flaky(Cluster node) {
      super(node);
    }

    private void check() {
      if (away) {
        throw new ClusterException("the cluster is away (a test)");
      }
    }

    @Override
    public boolean[] appendAll(List<FeedAppend> appends) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (paused && System.nanoTime() < deadline) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
      if (away) {
        refused.add(appends.size());
      }
      check();
      sizes.add(appends.size());
      return super.appendAll(appends);
    }

    @Override
    public boolean append(String turnId, long seq, String event, String json) {
      check();
      sizes.add(1);
      return super.append(turnId, seq, event, json);
    }

    @Override
    public void endFeed(String turnId, Duration keep) {
      check();
      ended = true;
      super.endFeed(turnId, keep);
    }

    @Override
    public boolean reachable() {
      return !away;
    }
  }
}
