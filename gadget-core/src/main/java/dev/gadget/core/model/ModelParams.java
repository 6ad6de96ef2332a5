package dev.gadget.core.model;

/**
 * Sampling parameters, the output limit and the context window of a model. Any of them may be
 * {@code null}, meaning "the server's default"; clients send only the ones that are set and that
 * their API takes.
 *
 * @param temperature sampling temperature
 * @param topP nucleus sampling probability mass
 * @param topK top-k sampling (Ollama, Anthropic; ignored by OpenAI-compatible servers)
 * @param maxTokens the most tokens the reply may have, reasoning included (OpenAI's
 *     {@code max_tokens}, Ollama's {@code num_predict}, Anthropic's {@code max_tokens})
 * @param contextWindow the most tokens the model takes in one request, prompt and reply
 *     together: the agent loop keeps each request's context within it, less a reserve for the
 *     reply; Ollama gets it as {@code num_ctx}. {@code null}: discovered where the provider says
 *     it, else the loop's {@code AgentLimits.contextTokenBudget}
 */
public record ModelParams(
    Double temperature, Double topP, Integer topK, Integer maxTokens, Integer contextWindow) {
  /** No parameters set: every value is the server's default. */
  public static final ModelParams DEFAULTS = new ModelParams(null, null, null, null, null);

  public ModelParams {
    if (contextWindow != null && contextWindow < 1) {
      throw new IllegalArgumentException("contextWindow must be positive: " + contextWindow);
    }
  }

  /**
   * Sampling parameters and an output limit, without a context window.
   *
   * @param temperature sampling temperature
   * @param topP nucleus sampling probability mass
   * @param topK top-k sampling
   * @param maxTokens the most tokens the reply may have
   */
  public ModelParams(Double temperature, Double topP, Integer topK, Integer maxTokens) {
    this(temperature, topP, topK, maxTokens, null);
  }

  /**
   * Sampling parameters without an output limit.
   *
   * @param temperature sampling temperature
   * @param topP nucleus sampling probability mass
   * @param topK top-k sampling
   */
  public ModelParams(Double temperature, Double topP, Integer topK) {
    this(temperature, topP, topK, null, null);
  }

  /** These parameters with the output limit {@code maxTokens} ({@code null}: the server's). */
  public ModelParams withMaxTokens(Integer maxTokens) {
    return new ModelParams(temperature, topP, topK, maxTokens, contextWindow);
  }

  /** These parameters with the context window {@code tokens} ({@code null}: not known). */
  public ModelParams withContextWindow(Integer tokens) {
    return new ModelParams(temperature, topP, topK, maxTokens, tokens);
  }
}
