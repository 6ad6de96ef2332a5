package dev.gadget.core.transport;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The server application's side of a {@link TransportServer}: decides who may connect and takes
 * each new connection.
 */
public interface ConnectionAcceptor {
  /**
   * Checks a CONNECT's auth payload before the connection exists. Return a principal (any
   * object; it is handed back in {@link #onConnect}) to accept, or throw
   * {@link ConnectionRefusedException} to refuse. An unknown namespace should be refused here.
   *
   * @param namespace the namespace asked for
   * @param auth the auth payload, or a {@code NullNode} when the peer sent none
   */
  Object authenticate(String namespace, JsonNode auth);

  /**
   * A connection was accepted. Register its handlers here; events that arrive before this
   * returns are delivered after it.
   */
  void onConnect(Connection connection, Object principal);

  /** The connection closed, for {@code reason} (such as {@code "transport close"}). */
  void onDisconnect(Connection connection, Object principal, String reason);
}
