package dev.gadget.core.spi;

import java.util.Objects;

/**
 * A {@link ChatStore} could not do what it was asked. {@link #reason()} tells the caller what
 * to do: {@link Reason#UNAVAILABLE} is worth retrying later, the others are not.
 */
public class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why a store operation failed. */
  public enum Reason {
    /** The entity named does not exist. */
    NOT_FOUND,
    /** A unique key (an id, a username) is taken. */
    DUPLICATE,
    /** The database cannot be reached or timed out: retry later. */
    UNAVAILABLE,
    /**
     * A fenced write of a turn ({@link ChatStore#fencesTurns}) carried a smaller fence than the
     * turn holds: another node took the turn over, and this write was not made.
     */
    FENCED,
    /** Any other failure. */
    FAILED
  }

  private final Reason reason;
  /** For {@link Reason#FENCED}: the fence the turn holds; else -1. */
  private long heldFence = -1;

  /** A failure for {@code reason}. */
  public StoreException(Reason reason, String message) {
    this(reason, message, null);
  }

  /** A failure for {@code reason}, caused by {@code cause}. */
  public StoreException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /**
   * The {@link Reason#FENCED} failure of a fenced write of {@code turnId} with {@code fence},
   * refused because the turn holds {@code held} (greater): one message for every store.
   */
  public static StoreException fenced(String turnId, long held, long fence) {
    String why = held == fence ? "fence " + held + ", claimed by that node first"
        : "fence " + held + " > " + fence;
    StoreException e = new StoreException(Reason.FENCED, "turn " + turnId + " was taken over by "
        + "another node (" + why + "): this write was not made");
    e.heldFence = held;
    return e;
  }

  /** For a {@link Reason#FENCED} failure, the fence the turn holds; else -1. */
  public long heldFence() {
    return heldFence;
  }

  /** Why it failed. */
  public Reason reason() {
    return reason;
  }

  /** Whether the same call may succeed later. */
  public boolean isRetryable() {
    return reason == Reason.UNAVAILABLE;
  }
}
