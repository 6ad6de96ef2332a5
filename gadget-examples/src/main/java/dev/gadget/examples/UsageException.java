package dev.gadget.examples;

/** The command line is wrong: the message says how, for a person. Exit code 2. */
final class UsageException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message, null, false, false);
  }
}
