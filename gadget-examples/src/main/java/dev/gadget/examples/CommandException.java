package dev.gadget.examples;

/** A command cannot do what it was asked: the message says why, for a person. Exit code 1. */
final class CommandException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  CommandException(String message) {
    super(message, null, false, false);
  }

  CommandException(String message, Throwable cause) {
    super(message, cause, false, false);
  }

  /** {@code host:port} is taken (or not this machine's). */
  static CommandException cannotListen(String host, int port, java.net.BindException e) {
    return new CommandException("cannot listen on " + host + ":" + port + " (" + e.getMessage()
        + "); is another server running there? Choose another --port", e);
  }
}
