package dev.gadget.core.agent.internal;

/** Thrown inside a run once it is cancelled, to unwind to {@link AgentTurn#execute}. */
public final class Cancelled extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** A cancellation; no stack trace, nothing to suppress. */
  public Cancelled() {
    super("cancelled", null, false, false);
  }
}
