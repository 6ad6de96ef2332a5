package dev.gadget.core.server.internal;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's leases of the drones whose sockets it holds. A drone's lease is taken, renewed and
 * given up one at a time (locks shared by drones whose ids hash alike), each time against the
 * drone's socket as it is then: a socket's close handled late gives up no lease taken for the
 * drone's next socket, and a renewal takes no lease for a drone gone meanwhile.
 */
final class DroneLeases {
  private static final Logger log = LoggerFactory.getLogger(DroneLeases.class);

  private final Cluster cluster;
  private final Duration ttl;
  private final Map<String, Cluster.Lease> leases = new ConcurrentHashMap<>();
  /** Drones held here whose lease could not be taken (the cluster was away): tried again. */
  private final Map<String, ConnectedDrone> unleased = new ConcurrentHashMap<>();
  private final StripedLocks locks = new StripedLocks(64);

  DroneLeases(Cluster cluster, Duration ttl) {
    this.cluster = cluster;
    this.ttl = ttl;
  }

  /** The leases by drone, for {@link LeaseRefencing}, which numbers one again in place. */
  Map<String, Cluster.Lease> map() {
    return leases;
  }

  /** This node's lease of the drone, or null when it holds none. */
  Cluster.Lease get(String droneId) {
    return leases.get(droneId);
  }

  /**
   * The drone's socket is here: leases it, taking it from any other node. False when the
   * cluster is away (tried again at each renewal) or the socket has closed meanwhile.
   */
  boolean take(ConnectedDrone drone) {
    synchronized (locks.of(drone.id)) {
      if (drone.connection == null) {
        unleased.remove(drone.id, drone);
        return false; // closed before it was leased: its close gives up nothing
      }
      try {
        leases.put(drone.id, cluster.acquire(drone.id, ttl));
        unleased.remove(drone.id);
        return true;
      } catch (ClusterException e) {
        if (unleased.put(drone.id, drone) == null) {
          log.warn("drone {} is served here but could not be leased yet: {}", drone.id,
              e.getMessage());
        }
        return false;
      }
    }
  }

  /**
   * The drone's socket closed: its lease is given up, unless the drone has connected here again
   * since (its new socket keeps the lease).
   */
  void giveUp(ConnectedDrone drone) {
    Cluster.Lease lease;
    synchronized (locks.of(drone.id)) {
      if (drone.connection != null) {
        return;
      }
      unleased.remove(drone.id);
      lease = leases.remove(drone.id);
      if (lease != null) {
        release(lease);
      }
    }
  }

  /** Another node took the drone: this node holds no lease of it. */
  void forget(String droneId) {
    leases.remove(droneId);
  }

  /**
   * Renews every lease, and leases the drones that could not be; returns the drones another node
   * has taken since (their leases forgotten here).
   */
  List<String> renew() {
    List<String> taken = new ArrayList<>();
    for (Cluster.Lease lease : List.copyOf(leases.values())) {
      synchronized (locks.of(lease.droneId())) {
        if (leases.get(lease.droneId()) != lease) {
          continue; // given up, or numbered again, since
        }
        boolean held;
        try {
          held = cluster.renew(lease, ttl);
        } catch (ClusterException e) {
          continue; // the cluster is away: the node goes on serving the drone (logged once)
        }
        if (!held && !stillOurs(lease) && leases.remove(lease.droneId(), lease)) {
          taken.add(lease.droneId());
        }
      }
    }
    for (ConnectedDrone d : List.copyOf(unleased.values())) {
      take(d);
    }
    return taken;
  }

  /**
   * A renewal was refused: true when the drone is still this node's (its lease numbered again,
   * or no node holds it and this node, which has its socket, leases it again).
   */
  private boolean stillOurs(Cluster.Lease lease) {
    try {
      Optional<Cluster.Lease> now = cluster.locate(lease.droneId());
      if (now.isPresent()) {
        if (!now.get().nodeId().equals(cluster.nodeId())) {
          return false; // another node took it
        }
        leases.replace(lease.droneId(), lease, now.get()); // numbered again since (refence)
        return true;
      }
      Cluster.Lease fresh = cluster.acquire(lease.droneId(), ttl);
      if (!leases.replace(lease.droneId(), lease, fresh)) {
        release(fresh); // forgotten meanwhile (taken by another node): lease nothing for it
        return true;
      }
      log.info("drone {} is leased to this node again (the cluster had lost its lease)",
          lease.droneId());
      return true;
    } catch (ClusterException e) {
      return true; // away again: the next renewal tries again
    }
  }

  /** The node is closing: every lease is given up. */
  void giveUpAll() {
    for (Cluster.Lease lease : List.copyOf(leases.values())) {
      release(lease);
    }
  }

  private void release(Cluster.Lease lease) {
    try {
      cluster.release(lease);
    } catch (ClusterException e) {
      log.debug("lease of drone {} not released: {}", lease.droneId(), e.getMessage());
    }
  }
}
