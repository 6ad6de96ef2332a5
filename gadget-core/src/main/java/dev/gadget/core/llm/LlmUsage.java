package dev.gadget.core.llm;

import java.time.Duration;

/**
 * What a call cost, as far as the server said.
 *
 * @param promptTokens input tokens
 * @param completionTokens output tokens (reasoning included)
 * @param reasoningTokens the part of the output that was reasoning
 * @param totalDuration Ollama's {@code total_duration}, or {@code null}
 * @param loadDuration Ollama's {@code load_duration}, or {@code null}
 * @param promptEvalDuration Ollama's {@code prompt_eval_duration}, or {@code null}
 * @param evalDuration Ollama's {@code eval_duration}, or {@code null}
 */
public record LlmUsage(
    long promptTokens,
    long completionTokens,
    long reasoningTokens,
    Duration totalDuration,
    Duration loadDuration,
    Duration promptEvalDuration,
    Duration evalDuration) {
  /** Nothing reported. */
  public static final LlmUsage NONE = new LlmUsage(0, 0, 0, null, null, null, null);
}
