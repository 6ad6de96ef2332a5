package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ForwardingCluster;
import dev.gadget.core.store.InMemoryChatStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A drone's lease follows its socket when the socket's close is handled while the lease is
 * renewed, or after the drone has connected again: no lease is left behind for a drone that is
 * gone, and none is given up for a drone that is back.
 */
class DroneLeaseRaceTest extends ClusterNodeFixture {
  private final Cluster joined = hub.join("a");

  @Test
  void aCloseHandledDuringARenewalLeavesNoLeaseBehind() throws Exception {
    ConnectedDrone drone = connectedDrone("d1");
    Thread[] closing = new Thread[1];
    start(new ForwardingCluster(joined) {
      @Override
      public boolean renew(Lease lease, Duration ttl) {
        // the socket closes now, between the renewal's copy of the leases and its command
        drone.connection = null;
        // the close runs, or waits for the renewal to finish
        closing[0] = runUntilBlocked(() -> node.droneDisconnected(drone));
        return delegate.renew(lease, ttl);
      }
    });
    node.droneConnected(drone);
    assertThat(joined.locate("d1")).isPresent();

    node.renew();
    closing[0].join(TimeUnit.SECONDS.toMillis(10));

    assertThat(closing[0].isAlive()).isFalse();
    assertThat(joined.locate("d1")).as("the gone drone's lease").isEmpty();
    assertThat(node.lease("d1")).isNull();
  }

  @Test
  void aCloseHandledAfterTheDroneCameBackKeepsItsNewLease() {
    start(joined);
    ConnectedDrone drone = connectedDrone("d1");
    node.droneConnected(drone);
    ConnectedDrone back = connectedDrone("d1"); // its next socket, on this node
    drone.connection = null; // the first socket closed: its close is handled late
    drone.connection = back.connection;
    node.droneConnected(drone);

    node.droneDisconnected(drone); // the first socket's close, handled now

    assertThat(node.lease("d1")).isNotNull();
    assertThat(joined.locate("d1")).map(Cluster.Lease::nodeId).contains("a");
  }

  @Test
  void aDroneGoneBeforeItsLeaseIsTakenIsNotLeased() {
    start(joined);
    ConnectedDrone drone = connectedDrone("d1");
    drone.connection = null; // closed, and its close handled, before the lease was taken
    node.droneDisconnected(drone);

    node.droneConnected(drone);

    assertThat(node.lease("d1")).isNull();
    assertThat(joined.locate("d1")).isEmpty();
  }

  private void start(Cluster cluster) {
    ServerSettings settings = settings(new InMemoryChatStore());
    join(settings, cluster, liveTurns(settings));
  }
}
