package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.server.ServerListener;
import dev.gadget.core.spi.ClusterException;
import dev.gadget.core.spi.ForwardingCluster;
import dev.gadget.core.store.InMemoryChatStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The orphan sweep after the cluster was away: a turn seen without a node before the outage is
 * not ended by the first sweep after it, however long the outage lasted (a node may have taken
 * its drone over meanwhile without a lease, and leases it again at its next renewal); it is
 * ended once seen unheld for a whole grace period again.
 */
class OrphanSweepOutageTest {
  private static final Duration GRACE = Duration.ofSeconds(30);
  private final InProcessCluster hub = new InProcessCluster();
  private final ServerTimer timer = new ServerTimer();
  private final InMemoryChatStore store = new InMemoryChatStore();
  private final AtomicLong now = new AtomicLong(Instant.parse("2026-01-01T00:00:00Z")
      .toEpochMilli());
  private volatile boolean away;

  @AfterEach
  void close() {
    timer.close();
    hub.close();
  }

  @Test
  void theFirstSweepAfterAnOutageEndsNoTurnItSawUnheldBeforeIt() {
    ForwardingCluster cluster = new ForwardingCluster(hub.join("c")) {
      @Override
      public long lastFence() {
        if (away) {
          throw new ClusterException("Redis at 127.0.0.1:6379 could not be reached");
        }
        return delegate.lastFence();
      }
    };
    ServerSettings settings = new ServerSettings(store, new MillisClock(now), s -> null, GRACE,
        Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30),
        new ServerListener() {}, null, null, null);
    WatcherRooms rooms = new WatcherRooms();
    OrphanTurns orphans = new OrphanTurns(settings, cluster,
        new LiveTurns(settings, timer, rooms, new DroneRouter()), (s, e, a) -> {});
    store.createTurn(ChatTurn.start("t1", "s1", "u1", 0, "go", "build",
        Instant.ofEpochMilli(now.get())));

    orphans.sweep(); // seen without a node
    away = true;
    now.addAndGet(GRACE.toMillis() * 2);
    orphans.sweep(); // the cluster cannot be reached
    away = false;
    orphans.sweep();
    assertThat(status()).as("the first sweep after the outage").isEqualTo(TurnStatus.PROCESSING);

    now.addAndGet(GRACE.toMillis());
    orphans.sweep();
    assertThat(status()).as("a grace period after the outage").isEqualTo(TurnStatus.INTERRUPTED);
  }

  private TurnStatus status() {
    return store.findTurn("t1").map(ChatTurn::status).orElseThrow();
  }

  /** A clock at {@code millis}, moved by the test. */
  private static final class MillisClock extends Clock {
    private final AtomicLong millis;

    MillisClock(AtomicLong millis) {
      this.millis = millis;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis.get());
    }
  }
}
