package dev.gadget.core.model;

/**
 * Sampling parameters and the output limit for a model. Any of them may be {@code null}, meaning
 * "the server's default"; clients send only the ones that are set and that their API takes.
 *
 * @param temperature sampling temperature
 * @param topP nucleus sampling probability mass
 * @param topK top-k sampling (Ollama, Anthropic; ignored by OpenAI-compatible servers)
 * @param maxTokens the most tokens the reply may have, reasoning included (OpenAI's
 *     {@code max_tokens}, Ollama's {@code num_predict}, Anthropic's {@code max_tokens})
 */
public record ModelParams(Double temperature, Double topP, Integer topK, Integer maxTokens) {
  /** No parameters set: every value is the server's default. */
  public static final ModelParams DEFAULTS = new ModelParams(null, null, null, null);

  /**
   * Sampling parameters without an output limit.
   *
   * @param temperature sampling temperature
   * @param topP nucleus sampling probability mass
   * @param topK top-k sampling
   */
  public ModelParams(Double temperature, Double topP, Integer topK) {
    this(temperature, topP, topK, null);
  }

  /** These parameters with the output limit {@code maxTokens} ({@code null}: the server's). */
  public ModelParams withMaxTokens(Integer maxTokens) {
    return new ModelParams(temperature, topP, topK, maxTokens);
  }
}
