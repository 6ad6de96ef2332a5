package dev.gadget.core.llm;

import java.time.Duration;

/**
 * What a call cost, as far as the server said. {@link #reported()} tells "the server sent no
 * usage" ({@link #NONE}) apart from "the server counted zero tokens".
 *
 * @param promptTokens input tokens, those read from or written to the prompt cache included
 * @param completionTokens output tokens (reasoning included)
 * @param reasoningTokens the part of the output that was reasoning
 * @param totalDuration Ollama's {@code total_duration}, or {@code null}
 * @param loadDuration Ollama's {@code load_duration}, or {@code null}
 * @param promptEvalDuration Ollama's {@code prompt_eval_duration}, or {@code null}
 * @param evalDuration Ollama's {@code eval_duration}, or {@code null}
 * @param cacheReadTokens the part of the input read from the prompt cache (OpenAI's
 *     {@code prompt_tokens_details.cached_tokens}, Anthropic's {@code cache_read_input_tokens})
 * @param cacheWriteTokens the part of the input written to the prompt cache (Anthropic's
 *     {@code cache_creation_input_tokens}; 0 where a server does not say)
 * @param reported whether the server sent any usage at all
 */
public record LlmUsage(
    long promptTokens,
    long completionTokens,
    long reasoningTokens,
    Duration totalDuration,
    Duration loadDuration,
    Duration promptEvalDuration,
    Duration evalDuration,
    long cacheReadTokens,
    long cacheWriteTokens,
    boolean reported) {
  /** Nothing reported: the server sent no usage. */
  public static final LlmUsage NONE = new LlmUsage(0, 0, 0, null, null, null, null, 0, 0, false);

  /**
   * Usage the server reported, without prompt-cache counts.
   *
   * @param promptTokens input tokens
   * @param completionTokens output tokens (reasoning included)
   * @param reasoningTokens the part of the output that was reasoning
   * @param totalDuration Ollama's {@code total_duration}, or {@code null}
   * @param loadDuration Ollama's {@code load_duration}, or {@code null}
   * @param promptEvalDuration Ollama's {@code prompt_eval_duration}, or {@code null}
   * @param evalDuration Ollama's {@code eval_duration}, or {@code null}
   */
  public LlmUsage(long promptTokens, long completionTokens, long reasoningTokens,
      Duration totalDuration, Duration loadDuration, Duration promptEvalDuration,
      Duration evalDuration) {
    this(promptTokens, completionTokens, reasoningTokens, totalDuration, loadDuration,
        promptEvalDuration, evalDuration, 0, 0, true);
  }

  /**
   * Token counts the server reported, with the prompt cache's share.
   *
   * @param promptTokens input tokens, cached ones included
   * @param completionTokens output tokens (reasoning included)
   * @param reasoningTokens the part of the output that was reasoning
   * @param cacheReadTokens the part of the input read from the prompt cache
   * @param cacheWriteTokens the part of the input written to the prompt cache
   * @return the usage, {@link #reported()}
   */
  public static LlmUsage ofTokens(long promptTokens, long completionTokens, long reasoningTokens,
      long cacheReadTokens, long cacheWriteTokens) {
    return new LlmUsage(promptTokens, completionTokens, reasoningTokens, null, null, null, null,
        cacheReadTokens, cacheWriteTokens, true);
  }
}
