package dev.gadget.core.model;

import java.util.Objects;

/**
 * What one model of a provider costs, in US dollars per million tokens, as the provider's price
 * list says. Reasoning (thinking) tokens are output tokens and cost what output costs.
 *
 * @param modelId the model, as the provider names it
 * @param inputPerMillion dollars per million prompt tokens
 * @param outputPerMillion dollars per million completion tokens
 */
public record ModelPrice(String modelId, double inputPerMillion, double outputPerMillion) {
  /** The most one million tokens may cost here; a larger price is a typing error. */
  public static final double MAX_PER_MILLION = 10_000;

  public ModelPrice {
    Objects.requireNonNull(modelId, "modelId");
    check("inputPerMillion", inputPerMillion);
    check("outputPerMillion", outputPerMillion);
  }

  private static void check(String name, double price) {
    if (!(price >= 0 && price <= MAX_PER_MILLION)) {
      throw new IllegalArgumentException(name + " must be a price from 0 to "
          + (long) MAX_PER_MILLION + " dollars per million tokens; got " + price);
    }
  }

  /** The cost of these tokens, in billionths of a dollar (nano-dollars), rounded. */
  public long costNanos(long promptTokens, long completionTokens) {
    // dollars per million tokens = thousandths of a nano-dollar per token
    return Math.round(promptTokens * inputPerMillion * 1_000
        + completionTokens * outputPerMillion * 1_000);
  }
}
