package dev.gadget.cluster.redis.internal;

import dev.gadget.core.spi.ClusterException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every Redis command of a node goes through {@link #call}: a failure becomes a
 * {@link ClusterException} in words (the address, never a password), and the node's view of
 * whether Redis is reachable changes with each answer, logged once each way.
 */
public final class RedisCalls {
  private static final Logger log = LoggerFactory.getLogger(RedisCalls.class);

  private final String address;
  private final long timeoutMillis;
  private volatile boolean reachable = true;

  /**
   * @param address host:port, for messages
   * @param timeoutMillis how long a command may take, for messages
   */
  public RedisCalls(String address, long timeoutMillis) {
    this.address = address;
    this.timeoutMillis = timeoutMillis;
  }

  /** Runs {@code command}; a Redis failure is thrown as a {@link ClusterException}. */
  public <T> T call(String what, Supplier<T> command) {
    try {
      T result = command.get();
      answered();
      return result;
    } catch (ClusterException e) {
      throw e;
    } catch (RuntimeException e) {
      throw failed(what, e);
    }
  }

  /** Redis answered. */
  public void answered() {
    if (!reachable) {
      reachable = true;
      log.info("Redis at {} answers again: the cluster is whole", address);
    }
  }

  /** Redis did not answer {@code what}: the exception to throw, logged once until it is back. */
  public ClusterException failed(String what, RuntimeException cause) {
    String why = cause.getClass().getSimpleName().contains("Timeout")
        ? "did not answer within " + timeoutMillis + " ms"
        : "could not be reached (" + firstLine(cause.getMessage()) + ")";
    ClusterException e = new ClusterException("Redis at " + address + " " + why
        + " while this node " + what, cause);
    if (reachable) {
      reachable = false;
      log.warn("{}; this node goes on serving its own pages and drones until it is back",
          e.getMessage());
    } else {
      log.debug("{}", e.getMessage());
    }
    return e;
  }

  /** Whether the last command was answered. */
  public boolean reachable() {
    return reachable;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "no reason given";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
