package dev.gadget.core.server.internal;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's leases numbered again above the store's fence ({@link Cluster#refence}): the store
 * refused a write for a fence above the node's lease of the drone, which the cluster still
 * names, so the cluster lost its fencing counter (Redis restarted empty) or the turn was claimed
 * while it was away (the store's fence plus one). One call at a time per drone, so that of two
 * writes refused together (a block and the turn's end) the second finds the lease numbered
 * already instead of giving the turn up; drones apart, calls do not wait for each other (each
 * may wait for Redis up to its command timeout).
 */
final class LeaseRefencing {
  private static final Logger log = LoggerFactory.getLogger(LeaseRefencing.class);
  private static final int STRIPES = 64;

  private final Cluster cluster;
  private final Map<String, Cluster.Lease> leases;
  private final Duration ttl;
  private final Object[] locks = new Object[STRIPES];

  /** @param leases the node's leases by drone, replaced here when numbered again */
  LeaseRefencing(Cluster cluster, Map<String, Cluster.Lease> leases, Duration ttl) {
    this.cluster = cluster;
    this.leases = leases;
    this.ttl = ttl;
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new Object();
    }
  }

  /**
   * True when the node's lease of the drone is at or above {@code floor} now (numbered again
   * here, or by a write before); false when the node holds it no more.
   */
  boolean refence(String droneId, long floor) {
    synchronized (locks[Math.floorMod(droneId.hashCode(), STRIPES)]) {
      Cluster.Lease mine = leases.get(droneId);
      if (mine == null) {
        return false;
      }
      return mine.fence() >= floor || numberAgain(droneId, mine, floor);
    }
  }

  private boolean numberAgain(String droneId, Cluster.Lease mine, long floor) {
    try {
      Cluster.Lease again = cluster.refence(mine, floor, ttl);
      boolean numbered = again != null
          && (leases.replace(droneId, mine, again) || again.equals(leases.get(droneId)));
      if (numbered) {
        log.warn("drone {}: the lease (fence {}) was below the store's fence {}: numbered "
            + "again, fence {} now", droneId, mine.fence(), floor, again.fence());
      }
      return numbered;
    } catch (ClusterException e) {
      return false;
    }
  }
}
