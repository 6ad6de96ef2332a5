package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ForwardingCluster;
import dev.gadget.core.store.InMemoryChatStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Two writes of one drone's turn refused together for the store's fence (a block and the end,
 * after Redis lost its fencing counter) both number the node's lease again: the second must
 * find it numbered already, not give the turn up because the cluster no longer names the lease
 * it read.
 */
class ClusterNodeRefenceTest extends ClusterNodeFixture {
  private static final long STORE_FENCE = 10;
  @Test
  void twoWritesRefusedTogetherBothGoOnWithTheLeaseNumberedOnce() throws Exception {
    CountDownLatch firstInside = new CountDownLatch(1);
    CountDownLatch letFirstGo = new CountDownLatch(1);
    AtomicInteger refences = new AtomicInteger();
    Cluster cluster = new ForwardingCluster(hub.join("a")) {
      @Override
      public Lease refence(Lease lease, long floor, Duration ttl) {
        if (refences.incrementAndGet() == 1) { // the first write's, held until the second came
          firstInside.countDown();
          await(letFirstGo);
        }
        return delegate.refence(lease, floor, ttl);
      }
    };
    ServerSettings settings = settings(new InMemoryChatStore());
    join(settings, cluster, liveTurns(settings));
    node.droneConnected(connectedDrone("d1"));
    assertThat(node.lease("d1").fence()).isLessThan(STORE_FENCE);

    CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(
        () -> node.refence("d1", STORE_FENCE));
    assertThat(firstInside.await(10, TimeUnit.SECONDS)).isTrue();
    Thread[] secondThread = new Thread[1];
    CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> {
      secondThread[0] = Thread.currentThread();
      return node.refence("d1", STORE_FENCE);
    });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!second.isDone() && (secondThread[0] == null
        || secondThread[0].getState() != Thread.State.BLOCKED)) { // waits for the first, or not
      assertThat(System.nanoTime()).as("the second write done or waiting").isLessThan(deadline);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    letFirstGo.countDown();

    assertThat(first.get(10, TimeUnit.SECONDS)).as("the first write goes on").isTrue();
    assertThat(second.get(10, TimeUnit.SECONDS)).as("the second write goes on").isTrue();
    assertThat(node.lease("d1").fence()).isGreaterThan(STORE_FENCE);
    assertThat(refences.get()).as("numbered once").isEqualTo(1);
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
