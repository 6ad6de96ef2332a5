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
 */
public record TurnStats(
    long promptTokens,
    long completionTokens,
    long thinkingTokenCount,
    int toolCallCount,
    int llmCalls,
    long durationMs) {
  /** All zero. */
  public static final TurnStats EMPTY = new TurnStats(0, 0, 0, 0, 0, 0);
}
