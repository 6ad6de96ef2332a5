package dev.gadget.core.agent;

/**
 * Thrown by a {@link Tool} to report a problem to the model: the message becomes the tool's
 * error result, so write it for the model (what was wrong and what to do instead). Not a failure
 * of the turn.
 */
public class ToolException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A problem described for the model. */
  public ToolException(String message) {
    super(message);
  }

  /** A problem described for the model, with its cause (for logs). */
  public ToolException(String message, Throwable cause) {
    super(message, cause);
  }
}
