package dev.gadget.core.model;

/**
 * Sampling parameters for a model. Any of them may be {@code null}, meaning "the server's
 * default"; clients send only the ones that are set and that their API takes.
 *
 * @param temperature sampling temperature
 * @param topP nucleus sampling probability mass
 * @param topK top-k sampling (Ollama; ignored by OpenAI-compatible servers)
 */
public record ModelParams(Double temperature, Double topP, Integer topK) {
  /** No parameters set: every value is the server's default. */
  public static final ModelParams DEFAULTS = new ModelParams(null, null, null);
}
