package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An LLM provider a user added (seeds 000 and 001, {@code IAiProvider}): where it is, which API it
 * speaks and, sealed, its API key.
 *
 * <p>The key is kept only as {@code sealedApiKey}, the ciphertext the server's secret key made
 * (AES-GCM, with the id of the key that sealed it; see {@code docs/PROVIDERS.md}): a store never
 * holds it in clear, and {@link #toString()} says only whether one is set.
 *
 * @param id the provider's id
 * @param userId the owner
 * @param name the display name
 * @param kind the API it speaks: {@code ollama}, {@code openai} (OpenAI-compatible) or
 *     {@code anthropic}
 * @param baseUrl the server's base URL
 * @param sealedApiKey the sealed API key, or {@code null} when it takes none
 * @param createdAt when it was added
 * @param prices what its models cost, for the usage totals' cost (empty: no cost is kept)
 * @param sampling how its models sample unless a chat says otherwise, or {@code null} (also for
 *     a {@link Sampling} that sets nothing): the server operator's, else each model's own
 */
public record ModelProvider(
    @JsonProperty("_id") String id,
    String userId,
    String name,
    String kind,
    String baseUrl,
    String sealedApiKey,
    Instant createdAt,
    List<ModelPrice> prices,
    Sampling sampling) {
  /** The most prices one provider keeps. */
  public static final int MAX_PRICES = 200;

  public ModelProvider {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(createdAt, "createdAt");
    prices = prices == null ? List.of() : List.copyOf(prices);
    sampling = Sampling.orNull(sampling);
  }

  /** A provider that sets no sampling: the server operator's, else each model's own. */
  public ModelProvider(String id, String userId, String name, String kind, String baseUrl,
      String sealedApiKey, Instant createdAt, List<ModelPrice> prices) {
    this(id, userId, name, kind, baseUrl, sealedApiKey, createdAt, prices, null);
  }

  /** A provider whose models have no prices. */
  public ModelProvider(String id, String userId, String name, String kind, String baseUrl,
      String sealedApiKey, Instant createdAt) {
    this(id, userId, name, kind, baseUrl, sealedApiKey, createdAt, List.of(), null);
  }

  /** The price of {@code modelId}, or {@code null} when it has none. */
  public ModelPrice priceOf(String modelId) {
    for (ModelPrice p : prices) {
      if (p.modelId().equals(modelId)) {
        return p;
      }
    }
    return null;
  }

  /** Whether an API key is set. */
  public boolean hasApiKey() {
    return sealedApiKey != null;
  }

  @Override
  public String toString() {
    return "ModelProvider[id=" + id + ", userId=" + userId + ", name=" + name + ", kind=" + kind
        + ", baseUrl=" + baseUrl + ", apiKey=" + (hasApiKey() ? "<set>" : "<not set>")
        + ", createdAt=" + createdAt + ", prices=" + prices.size() + ", sampling=" + sampling
        + "]";
  }
}
