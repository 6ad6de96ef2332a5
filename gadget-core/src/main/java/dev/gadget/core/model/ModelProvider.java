package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

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
 * @param contextWindows the context window of each model that sets one, in tokens (at least
 *     {@value #MIN_CONTEXT_WINDOW}): the budget and compaction of its turns fit it, instead of
 *     what the provider says (empty: the provider's)
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
    Sampling sampling,
    Map<String, Integer> contextWindows) {
  /** The most prices one provider keeps; also the most context windows. */
  public static final int MAX_PRICES = 200;
  /** The smallest context window a model may be given. */
  public static final int MIN_CONTEXT_WINDOW = 1024;

  public ModelProvider {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(baseUrl, "baseUrl");
    Objects.requireNonNull(createdAt, "createdAt");
    prices = prices == null ? List.of() : List.copyOf(prices);
    sampling = Sampling.orNull(sampling);
    contextWindows = contextWindows == null ? Map.of()
        : Collections.unmodifiableMap(new TreeMap<>(contextWindows));
    if (contextWindows.size() > MAX_PRICES) {
      throw new IllegalArgumentException("a provider keeps at most " + MAX_PRICES
          + " context windows; got " + contextWindows.size());
    }
    contextWindows.forEach((model, tokens) -> {
      if (tokens == null || tokens < MIN_CONTEXT_WINDOW) {
        throw new IllegalArgumentException("the context window of " + model + " must be at "
            + "least " + MIN_CONTEXT_WINDOW + " tokens; got " + tokens);
      }
    });
  }

  /** A provider whose models set no context window: the provider says each one's. */
  public ModelProvider(String id, String userId, String name, String kind, String baseUrl,
      String sealedApiKey, Instant createdAt, List<ModelPrice> prices, Sampling sampling) {
    this(id, userId, name, kind, baseUrl, sealedApiKey, createdAt, prices, sampling, null);
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
        + ", contextWindows=" + contextWindows + "]";
  }
}
