package dev.gadget.core.agent;

/**
 * Limits on one turn. Hitting one ends the turn as {@link AgentOutcome.Status#LIMIT_HIT} with a
 * message saying which, never with an exception.
 *
 * @param maxRoundTrips the most calls to the model in one turn (default 50). The tools asked for in
 *     the last allowed round trip still run; then the turn ends.
 * @param repeatedToolCallLimit the turn ends when the model makes the same tool call (same name,
 *     same arguments compared as JSON) this many times in a row; that call is not run (default 3)
 * @param contextTokenBudget the estimated tokens the context may take before
 *     {@link ContextPruner} elides old tool outputs (default 32,000; see
 *     {@link ContextPruner#estimateTokens})
 */
public record AgentLimits(int maxRoundTrips, int repeatedToolCallLimit, int contextTokenBudget) {
  /** The defaults: 50 round trips, 3 identical calls in a row, a 32,000-token context. */
  public static final AgentLimits DEFAULTS = new AgentLimits(50, 3, 32_000);

  public AgentLimits {
    if (maxRoundTrips < 1) {
      throw new IllegalArgumentException("maxRoundTrips < 1: " + maxRoundTrips);
    }
    if (repeatedToolCallLimit < 2) {
      throw new IllegalArgumentException("repeatedToolCallLimit < 2: " + repeatedToolCallLimit);
    }
    if (contextTokenBudget < 1) {
      throw new IllegalArgumentException("contextTokenBudget < 1: " + contextTokenBudget);
    }
  }

  /** These limits with another {@link #maxRoundTrips}. */
  public AgentLimits withMaxRoundTrips(int value) {
    return new AgentLimits(value, repeatedToolCallLimit, contextTokenBudget);
  }

  /** These limits with another {@link #repeatedToolCallLimit}. */
  public AgentLimits withRepeatedToolCallLimit(int value) {
    return new AgentLimits(maxRoundTrips, value, contextTokenBudget);
  }

  /** These limits with another {@link #contextTokenBudget}. */
  public AgentLimits withContextTokenBudget(int value) {
    return new AgentLimits(maxRoundTrips, repeatedToolCallLimit, value);
  }
}
