package dev.gadget.core.server;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ForwardingCluster;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One node's real cluster node (a {@code RedisCluster}) whose lease renewals can be stopped:
 * once {@link #freeze}d, {@link #renew} answers "still held" without asking Redis, as a node
 * does between two renewals, or one paused (a long GC pause) that has not renewed since it woke.
 * So a test can make the window in which another node has taken a drone and this one does not
 * know it yet last as long as it needs. Once {@link #blind}ed, its look-ups ({@link #locate})
 * answer too that it holds the drones it leased, as a look-up made just before another node took
 * one over would: only the store's fence is left to stop it. Everything else goes to Redis as it
 * is.
 */
final class UnrenewedLeases extends ForwardingCluster {
  private volatile boolean frozen;
  private volatile boolean blind;
  /** The lease this node last took of each drone. */
  private final Map<String, Lease> taken = new ConcurrentHashMap<>();

  UnrenewedLeases(Cluster real) {
    super(real);
  }

  /** From now on this node's renewals do not reach Redis: it believes it holds its drones. */
  void freeze() {
    frozen = true;
  }

  /** Its renewals reach Redis again: the next one is refused, another node holding the drone. */
  void thaw() {
    frozen = false;
  }

  /** Renewals stopped, and look-ups say this node holds the drones it leased. */
  void blind() {
    freeze();
    blind = true;
  }

  @Override
  public Lease acquire(String droneId, Duration ttl) {
    Lease lease = super.acquire(droneId, ttl);
    taken.put(droneId, lease);
    return lease;
  }

  @Override
  public Optional<Lease> locate(String droneId) {
    Lease mine = taken.get(droneId);
    return blind && mine != null ? Optional.of(mine) : super.locate(droneId);
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    return frozen || super.renew(lease, ttl);
  }
}
