package dev.gadget.core.transport.internal;

import dev.gadget.core.transport.TransportClient;
import dev.gadget.core.transport.TransportServer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared state behind one {@code InMemoryTransport}: its threads, its settings, connection
 * ids, and the one server listening on it. Public only so that the public class can hold it;
 * every other piece of the in-memory transport is package-private here.
 *
 * <p>Writes to the listening server happen under this object's monitor (see
 * {@link InMemoryServer}).
 */
public final class InMemoryNetwork {
  /** Every in-memory piece logs under the public class's name. */
  static final Logger log = LoggerFactory.getLogger(InMemoryNetwork.class);

  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "gadget-inmemory-transport");
    t.setDaemon(true);
    return t;
  });
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "gadget-inmemory-timer");
    t.setDaemon(true);
    return t;
  });
  private final AtomicLong ids = new AtomicLong();
  private final Duration minBackoff;
  private final Duration maxBackoff;
  private final int bufferLimit;
  private volatile InMemoryServer listening;

  /** See {@code InMemoryTransport(Duration, Duration, int)}. */
  public InMemoryNetwork(Duration minBackoff, Duration maxBackoff, int bufferLimit) {
    this.minBackoff = Objects.requireNonNull(minBackoff, "minBackoff");
    this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (bufferLimit < 1) {
      throw new IllegalArgumentException("bufferLimit < 1");
    }
    this.bufferLimit = bufferLimit;
  }

  /** A new server on this network. */
  public TransportServer server() {
    return new InMemoryServer(this);
  }

  /** A new client on this network. */
  public TransportClient client() {
    return new InMemoryClient(this);
  }

  /** Cuts every open connection of the listening server as a network failure would. */
  public void severAll() {
    InMemoryServer s = listening;
    if (s != null) {
      s.severAll();
    }
  }

  /** The server listening now, or null. */
  InMemoryServer listening() {
    return listening;
  }

  /** Sets the listening server; callers hold this object's monitor. */
  void listening(InMemoryServer server) {
    listening = server;
  }

  String nextId() {
    return "mem-" + ids.incrementAndGet();
  }

  /** Where handlers and deliveries run, serialized per connection end. */
  ExecutorService pool() {
    return pool;
  }

  /** Ack timeouts and reconnect delays. */
  ScheduledExecutorService timer() {
    return timer;
  }

  /** How many emits a disconnected client keeps. */
  int bufferLimit() {
    return bufferLimit;
  }

  /** The delay before reconnect attempt {@code n} (from 0): doubling, capped, with jitter. */
  long reconnectDelayMillis(int n) {
    long base = Math.min(maxBackoff.toMillis(), minBackoff.toMillis() << Math.min(n, 20));
    return base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
  }
}
