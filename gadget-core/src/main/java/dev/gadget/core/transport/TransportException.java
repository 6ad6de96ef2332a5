package dev.gadget.core.transport;

/**
 * A transport failure: a refused connection, a closed connection, an ack timeout. {@link #data()}
 * is the server's CONNECT_ERROR data, if any.
 */
public class TransportException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Object data;

  /** A failure. */
  public TransportException(String message) {
    this(message, null, null);
  }

  /** A failure with the peer's data and a cause (both may be {@code null}). */
  public TransportException(String message, Object data, Throwable cause) {
    super(message, cause);
    this.data = data;
  }

  /** The peer's data (for a refused connection: CONNECT_ERROR {@code data}), or {@code null}. */
  public Object data() {
    return data;
  }
}
