package dev.gadget.transport.ws.internal;

/** A frame or packet that breaks the Engine.IO v4 / Socket.IO v5 protocol. */
public final class ProtocolException extends Exception {
  private static final long serialVersionUID = 1L;

  public ProtocolException(String message) {
    super(message);
  }

  public ProtocolException(String message, Throwable cause) {
    super(message, cause);
  }
}
