package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * How a model samples its reply, as a user's provider or a chat session sets it (seed 002's
 * {@code temperature}, {@code topP}, {@code topK}). Each value is optional: {@code null} leaves it
 * to the next one that sets it. A turn's work order takes each from the chat, else from the
 * chat's provider, else from the server operator's own parameters, else none (the model's own
 * default), one value at a time ({@link #or}).
 *
 * <p>Refuses, in people's words, what no API takes: a temperature outside 0 to 2, a top-p not
 * above 0 and at most 1, a top-k below 1.
 *
 * @param temperature sampling temperature, 0 to 2
 * @param topP nucleus sampling: the probability mass kept, above 0 and at most 1
 * @param topK top-k sampling, 1 or more (Ollama and Anthropic; OpenAI-compatible servers ignore
 *     it)
 */
public record Sampling(Double temperature, Double topP, Integer topK) {
  /** Nothing set: every value is the next one's. */
  public static final Sampling NONE = new Sampling(null, null, null);

  /** The highest temperature taken. */
  public static final double MAX_TEMPERATURE = 2;

  public Sampling {
    if (temperature != null && !(temperature >= 0 && temperature <= MAX_TEMPERATURE)) {
      throw new IllegalArgumentException(
          "temperature must be a number from 0 to 2; got " + temperature);
    }
    if (topP != null && !(topP > 0 && topP <= 1)) {
      throw new IllegalArgumentException(
          "topP must be a number above 0 and at most 1; got " + topP);
    }
    if (topK != null && topK < 1) {
      throw new IllegalArgumentException("topK must be a whole number, 1 or more; got " + topK);
    }
  }

  /** {@code s}, or {@link #NONE} for {@code null}. */
  public static Sampling orNone(Sampling s) {
    return s == null ? NONE : s;
  }

  /** {@code s}, or {@code null} when it sets nothing: how a store keeps "nothing set". */
  public static Sampling orNull(Sampling s) {
    return s == null || s.isEmpty() ? null : s;
  }

  /**
   * The sampling values of {@code params} (its output limit and context window left out);
   * {@link IllegalArgumentException} when one is out of range ({@link ModelParams} does not check
   * them).
   */
  public static Sampling of(ModelParams params) {
    return params == null ? NONE : new Sampling(params.temperature(), params.topP(),
        params.topK());
  }

  /** Whether no value is set. */
  @JsonIgnore
  public boolean isEmpty() {
    return temperature == null && topP == null && topK == null;
  }

  /** Each value of this one, or of {@code fallback} where this one sets none. */
  public Sampling or(Sampling fallback) {
    if (fallback == null) {
      return this;
    }
    return new Sampling(temperature != null ? temperature : fallback.temperature,
        topP != null ? topP : fallback.topP, topK != null ? topK : fallback.topK);
  }

  /** {@code params} with this sampling's values where set, its own elsewhere. */
  public ModelParams applyTo(ModelParams params) {
    ModelParams p = params == null ? ModelParams.DEFAULTS : params;
    return new ModelParams(temperature != null ? temperature : p.temperature(),
        topP != null ? topP : p.topP(), topK != null ? topK : p.topK(), p.maxTokens(),
        p.contextWindow());
  }
}
