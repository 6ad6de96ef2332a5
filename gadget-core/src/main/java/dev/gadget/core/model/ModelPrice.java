package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Locale;
import java.util.Objects;

/**
 * What one model of a provider costs, in US dollars per million tokens, as the provider's price
 * list says. Reasoning (thinking) tokens are output tokens and cost what output costs. Input read
 * from or written to the provider's prompt cache costs its own price: the one given here, else
 * the provider's published ratio to the input price ({@link CacheRatios#of}).
 *
 * @param modelId the model, as the provider names it
 * @param inputPerMillion dollars per million prompt tokens
 * @param outputPerMillion dollars per million completion tokens
 * @param cacheReadPerMillion dollars per million prompt tokens read from the cache, or
 *     {@code null} for the provider's ratio
 * @param cacheWritePerMillion dollars per million prompt tokens written to the cache, or
 *     {@code null} for the provider's ratio
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ModelPrice(String modelId, double inputPerMillion, double outputPerMillion,
    Double cacheReadPerMillion, Double cacheWritePerMillion) {
  /** The most one million tokens may cost here; a larger price is a typing error. */
  public static final double MAX_PER_MILLION = 10_000;
  /** Cache tokens at the input price: for providers that publish no cache prices. */
  public static final CacheRatios FALLBACK_RATIOS = new CacheRatios(1, 1);

  @JsonCreator
  public ModelPrice {
    Objects.requireNonNull(modelId, "modelId");
    check("inputPerMillion", inputPerMillion);
    check("outputPerMillion", outputPerMillion);
    if (cacheReadPerMillion != null) {
      check("cacheReadPerMillion", cacheReadPerMillion);
    }
    if (cacheWritePerMillion != null) {
      check("cacheWritePerMillion", cacheWritePerMillion);
    }
  }

  /** A price without cache prices of its own: the provider's ratios apply. */
  public ModelPrice(String modelId, double inputPerMillion, double outputPerMillion) {
    this(modelId, inputPerMillion, outputPerMillion, null, null);
  }

  private static void check(String name, double price) {
    if (!(price >= 0 && price <= MAX_PER_MILLION)) {
      throw new IllegalArgumentException(name + " must be a price from 0 to "
          + (long) MAX_PER_MILLION + " dollars per million tokens; got " + price);
    }
  }

  /** The cost of these tokens, all input at the input price, in nano-dollars, rounded. */
  public long costNanos(long promptTokens, long completionTokens) {
    return costNanos(promptTokens, 0, 0, completionTokens, FALLBACK_RATIOS);
  }

  /**
   * The cost of these tokens, in billionths of a dollar (nano-dollars), rounded: the input not
   * read from nor written to the cache at the input price, cache reads and writes at their
   * prices (this price's own, else {@code ratios} times the input price), the output at the
   * output price.
   *
   * @param promptTokens all input tokens, cached ones included
   * @param cacheReadTokens the part read from the cache
   * @param cacheWriteTokens the part written to the cache
   * @param completionTokens output tokens
   * @param ratios the provider's ratios, for the cache prices this price does not give
   */
  public long costNanos(long promptTokens, long cacheReadTokens, long cacheWriteTokens,
      long completionTokens, CacheRatios ratios) {
    Objects.requireNonNull(ratios, "ratios");
    long read = Math.max(0, Math.min(cacheReadTokens, promptTokens));
    long write = Math.max(0, Math.min(cacheWriteTokens, promptTokens - read));
    long plain = promptTokens - read - write;
    // dollars per million tokens = thousandths of a nano-dollar per token
    return Math.round(plain * inputPerMillion * 1_000 + read * readPrice(ratios) * 1_000
        + write * writePrice(ratios) * 1_000 + completionTokens * outputPerMillion * 1_000);
  }

  /** Dollars per million tokens read from the cache. */
  public double readPrice(CacheRatios ratios) {
    return cacheReadPerMillion != null ? cacheReadPerMillion : inputPerMillion * ratios.read();
  }

  /** Dollars per million tokens written to the cache. */
  public double writePrice(CacheRatios ratios) {
    return cacheWritePerMillion != null ? cacheWritePerMillion
        : inputPerMillion * ratios.write();
  }

  /**
   * A provider's cache prices as multiples of its input price.
   *
   * @param read a cache read's price over the input price
   * @param write a cache write's price over the input price
   */
  public record CacheRatios(double read, double write) {
    /** Anthropic's, with the five-minute cache: reads 0.1, writes 1.25 times the input. */
    public static final CacheRatios ANTHROPIC_5M = new CacheRatios(0.1, 1.25);
    /** Anthropic's, with the one-hour cache: reads 0.1, writes 2 times the input. */
    public static final CacheRatios ANTHROPIC_1H = new CacheRatios(0.1, 2);

    public CacheRatios {
      if (!(read >= 0 && write >= 0)) {
        throw new IllegalArgumentException("cache ratios must not be negative");
      }
    }

    /**
     * The published ratios of a provider of {@code kind} for {@code modelId}, as of 2025:
     * Anthropic's {@link #ANTHROPIC_5M} (the cache Gadget asks for by default); for OpenAI
     * (and OpenAI-compatible servers), cached input at 0.1 for the gpt-5 family and DeepSeek,
     * 0.25 for gpt-4.1, o3 and o4-mini, 0.5 otherwise (gpt-4o, o1, ...), and no write premium;
     * {@link ModelPrice#FALLBACK_RATIOS} for any other kind (Ollama reports no cache).
     */
    public static CacheRatios of(String kind, String modelId) {
      String k = kind == null ? "" : kind.toLowerCase(Locale.ROOT);
      String m = modelId == null ? "" : modelId.toLowerCase(Locale.ROOT);
      int slash = m.lastIndexOf('/'); // OpenRouter's "openai/gpt-5"
      m = m.substring(slash + 1);
      switch (k) {
        case "anthropic":
          return ANTHROPIC_5M;
        case "openai":
        case "openai-responses":
        case "llamacpp":
          if (m.startsWith("gpt-5") || m.startsWith("deepseek")) {
            return new CacheRatios(0.1, 1);
          }
          if (m.startsWith("gpt-4.1") || m.startsWith("o3") || m.startsWith("o4")) {
            return new CacheRatios(0.25, 1);
          }
          return new CacheRatios(0.5, 1);
        default:
          return FALLBACK_RATIOS;
      }
    }
  }
}
