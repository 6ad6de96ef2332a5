package dev.gadget.core.transport;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The client side of a transport. A client connection reconnects by itself after it drops,
 * with backoff, asking {@code auth} again each time (so a rotated token is picked up); handlers
 * registered with {@link Connection#on} stay registered across reconnects, and emits made while
 * disconnected are buffered and sent once connected again. The buffer is bounded: once it is
 * full, a further {@code emit} is dropped (with a warning, logged once) and a further
 * {@code emitWithAck} fails at once with a {@link TransportException}.
 */
public interface TransportClient extends AutoCloseable {
  /**
   * Opens a connection to {@code namespace}. Returns at once; {@code listener} hears when it is
   * connected, refused or dropped. Handlers registered after this returns may miss an event the
   * server sends as soon as it accepts; register those in
   * {@link #connect(String, Supplier, ClientListener, Consumer)}'s {@code setup}.
   */
  default Connection connect(String namespace, Supplier<JsonNode> auth, ClientListener listener) {
    return connect(namespace, auth, listener, c -> {});
  }

  /**
   * Opens a connection to {@code namespace} after {@code setup} has run on it: handlers it
   * registers with {@link Connection#on} hear every event, also those the server sends the moment
   * it accepts (a greeting). {@code setup} runs on the calling thread, before anything is sent;
   * keep it to registering handlers.
   */
  Connection connect(String namespace, Supplier<JsonNode> auth, ClientListener listener,
      Consumer<Connection> setup);

  /** Closes every connection this client opened. Idempotent. */
  @Override
  void close();

  /** What happens to a client connection. Every method has a no-op default. */
  interface ClientListener {
    /** Connected (again): the server accepted the auth payload. */
    default void onConnect(Connection connection) {}

    /** The server refused the connection; it will not be retried. */
    default void onConnectError(Connection connection, TransportException error) {}

    /**
     * The connection dropped.
     *
     * @param willReconnect whether the client will try again
     */
    default void onDisconnect(Connection connection, String reason, boolean willReconnect) {}
  }
}
