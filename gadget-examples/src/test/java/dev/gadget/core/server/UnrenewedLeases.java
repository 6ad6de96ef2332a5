package dev.gadget.core.server;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ForwardingCluster;
import java.time.Duration;

/**
 * One node's real cluster node (a {@code RedisCluster}) whose lease renewals can be stopped:
 * once {@link #freeze}d, {@link #renew} answers "still held" without asking Redis, as a node
 * does between two renewals, or one paused (a long GC pause) that has not renewed since it woke.
 * So a test can make the window in which another node has taken a drone and this one does not
 * know it yet last as long as it needs. Everything else goes to Redis as it is.
 */
final class UnrenewedLeases extends ForwardingCluster {
  private volatile boolean frozen;

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

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    return frozen || super.renew(lease, ttl);
  }
}
