package dev.gadget.core.transport;

/**
 * The server side of a transport: accepts connections and hands them to a
 * {@link ConnectionAcceptor}. Implementations: {@code InMemoryTransport} in core, the WebSocket
 * transport in gadget-transport-ws.
 */
public interface TransportServer extends AutoCloseable {
  /**
   * Starts accepting connections. Call once.
   *
   * @throws TransportException if the server cannot start (such as a port in use)
   */
  void start(ConnectionAcceptor acceptor);

  /** Closes every connection and stops accepting new ones. Idempotent. */
  @Override
  void close();
}
