package dev.gadget.core.transport;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Thrown by {@link ConnectionAcceptor#authenticate} to refuse a connection. The transport sends
 * the peer a CONNECT_ERROR with {@code message} and {@code data} and keeps serving everyone else.
 */
public class ConnectionRefusedException extends TransportException {
  private static final long serialVersionUID = 1L;

  /** Refuses with a message for the peer and optional JSON data. */
  public ConnectionRefusedException(String message, JsonNode data) {
    super(message, data, null);
  }

  /** The data sent to the peer, or {@code null}. */
  @Override
  public JsonNode data() {
    return (JsonNode) super.data();
  }
}
