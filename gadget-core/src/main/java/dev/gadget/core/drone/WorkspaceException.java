package dev.gadget.core.drone;

/** A drone's workspace is unusable: its {@code .gadget/} files are corrupt, or git failed. */
public class WorkspaceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A failure with a message naming the file or command. */
  public WorkspaceException(String message, Throwable cause) {
    super(message, cause);
  }

  /** A failure with a message naming the file or command. */
  public WorkspaceException(String message) {
    super(message);
  }
}
