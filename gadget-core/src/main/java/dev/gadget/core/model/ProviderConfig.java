package dev.gadget.core.model;

import java.util.Objects;

/**
 * Which LLM to call and how (seed 002, the work order's {@code provider}).
 *
 * <p>{@code sdk} names the client family, such as {@code "ollama"}, {@code "openai"},
 * {@code "openai-responses"} (OpenAI's Responses API) or {@code "llamacpp"} (an
 * OpenAI-compatible llama.cpp server, whose prompt cache is kept per chat); it is a string, not
 * an enum, so that core does not enumerate adapters. The API key is a secret:
 * {@link #toString()} redacts it, and it is never written under {@code .gadget/}.
 *
 * @param sdk the client family
 * @param baseUrl the server's base URL, such as {@code http://127.0.0.1:11434}
 * @param apiKey the API key, or {@code null} when the server takes none
 * @param modelId the model to run
 * @param params sampling parameters, never {@code null}
 */
public record ProviderConfig(
    String sdk, String baseUrl, String apiKey, String modelId, ModelParams params) {
  public ProviderConfig {
    Objects.requireNonNull(sdk, "sdk");
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(modelId, "modelId");
    params = params == null ? ModelParams.DEFAULTS : params;
  }

  /** This configuration without its API key, safe to write to disk or to a log. */
  public ProviderConfig withoutApiKey() {
    return new ProviderConfig(sdk, baseUrl, null, modelId, params);
  }

  @Override
  public String toString() {
    return "ProviderConfig[sdk=" + sdk + ", baseUrl=" + baseUrl
        + ", apiKey=" + (apiKey == null ? "null" : "<redacted>")
        + ", modelId=" + modelId + ", params=" + params + "]";
  }
}
