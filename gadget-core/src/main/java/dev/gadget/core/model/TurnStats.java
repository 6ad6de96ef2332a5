package dev.gadget.core.model;

/**
 * What a turn cost.
 *
 * @param promptTokens input tokens over all the turn's LLM calls
 * @param completionTokens output tokens, thinking included
 * @param thinkingTokenCount the part of the output that was thinking (seed 000's name)
 * @param toolCallCount how many tools ran
 * @param llmCalls how many round trips to the LLM the loop made
 * @param durationMs wall time from start to end
 * @param contextTokens the measured tokens of the context the last model call sent (0: not
 *     measured)
 * @param contextBudget the most tokens the context may take: the model's context window less the
 *     reply's reserve, or the loop's configured budget (0: not known)
 */
public record TurnStats(
    long promptTokens,
    long completionTokens,
    long thinkingTokenCount,
    int toolCallCount,
    int llmCalls,
    long durationMs,
    long contextTokens,
    long contextBudget) {
  /** All zero. */
  public static final TurnStats EMPTY = new TurnStats(0, 0, 0, 0, 0, 0, 0, 0);

  /**
   * Stats with no record of the context.
   *
   * @param promptTokens input tokens over all the turn's LLM calls
   * @param completionTokens output tokens, thinking included
   * @param thinkingTokenCount the part of the output that was thinking
   * @param toolCallCount how many tools ran
   * @param llmCalls how many round trips to the LLM the loop made
   * @param durationMs wall time from start to end
   */
  public TurnStats(long promptTokens, long completionTokens, long thinkingTokenCount,
      int toolCallCount, int llmCalls, long durationMs) {
    this(promptTokens, completionTokens, thinkingTokenCount, toolCallCount, llmCalls, durationMs,
        0, 0);
  }
}
