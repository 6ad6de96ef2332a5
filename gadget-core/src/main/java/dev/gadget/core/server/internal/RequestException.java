package dev.gadget.core.server.internal;

/** A request the server refuses, with a message for the page (sent as {@code {"error"}}). */
public final class RequestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RequestException(String message) {
    super(message, null, false, false);
  }
}
