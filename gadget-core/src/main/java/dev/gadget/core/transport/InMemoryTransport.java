package dev.gadget.core.transport;

import dev.gadget.core.transport.internal.InMemoryNetwork;
import java.time.Duration;

/**
 * A transport inside one JVM: the "network" that {@link #server() servers} listen on and
 * {@link #client() clients} connect through. It behaves like the WebSocket transport (arguments
 * are copied as if sent over the wire, per-connection ordering, acks with timeouts, client
 * reconnect with backoff and re-authentication, a bounded buffer while disconnected), so that the
 * server and drone runtimes are tested on it without sockets.
 *
 * <p>At most one server listens at a time: {@link TransportServer#close()} it and start another
 * to simulate a server restart. {@link #severAll()} cuts every connection as a network failure
 * would; clients then reconnect by themselves.
 */
public final class InMemoryTransport {
  private final InMemoryNetwork network;

  /** A transport with short reconnect backoff (10 ms to 200 ms) and a 1,000-event buffer. */
  public InMemoryTransport() {
    this(Duration.ofMillis(10), Duration.ofMillis(200), 1_000);
  }

  /**
   * A transport with the given client reconnect backoff and disconnected-buffer size.
   *
   * @param minBackoff the first reconnect delay
   * @param maxBackoff the largest reconnect delay
   * @param bufferLimit how many emits a disconnected client keeps; further ones are refused
   */
  public InMemoryTransport(Duration minBackoff, Duration maxBackoff, int bufferLimit) {
    this.network = new InMemoryNetwork(minBackoff, maxBackoff, bufferLimit);
  }

  /** A new server on this transport. Only one may listen at a time. */
  public TransportServer server() {
    return network.server();
  }

  /** A new client on this transport. */
  public TransportClient client() {
    return network.client();
  }

  /** Cuts every open connection as a network failure would ("transport close"). */
  public void severAll() {
    network.severAll();
  }
}
