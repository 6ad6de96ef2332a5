package dev.gadget.core.spi;

/**
 * The cluster's backend could not do what was asked in time (it is down, slow or refused), or
 * the node a request was mailed to could not answer it. The message says which, in words.
 */
public class ClusterException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An error with a message in people's words. */
  public ClusterException(String message) {
    super(message);
  }

  /** As above, with its cause. */
  public ClusterException(String message, Throwable cause) {
    super(message, cause);
  }
}
