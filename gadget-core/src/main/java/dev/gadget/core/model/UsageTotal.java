package dev.gadget.core.model;

import java.util.Objects;

/**
 * What one user's turns on one provider's model have used so far (seed 002's provider
 * statistics). The server adds one turn's worth when the turn ends; totals per provider or per
 * user are sums of these.
 *
 * @param userId the user
 * @param providerId the provider ({@link TurnModel#DEFAULT_PROVIDER} for the server's own)
 * @param modelId the model
 * @param turns how many turns ended
 * @param calls how many LLM calls they made
 * @param errors how many of the turns ended in an error
 * @param promptTokens input tokens, those read from or written to the prompt cache included
 * @param completionTokens output tokens, reasoning included
 * @param reasoningTokens the part of the output that was reasoning (thinking)
 * @param durationMs the turns' wall time
 * @param costNanos what the turns cost, in billionths of a dollar, at the model's price when
 *     each turn ended ({@link ModelPrice}); turns of a model without a price add nothing
 * @param cacheReadTokens the part of the input the provider read from its prompt cache (0 in
 *     totals stored before it was counted)
 * @param cacheWriteTokens the part of the input the provider wrote to its prompt cache
 */
public record UsageTotal(
    String userId,
    String providerId,
    String modelId,
    long turns,
    long calls,
    long errors,
    long promptTokens,
    long completionTokens,
    long reasoningTokens,
    long durationMs,
    long costNanos,
    long cacheReadTokens,
    long cacheWriteTokens) {
  public UsageTotal {
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(providerId, "providerId");
    Objects.requireNonNull(modelId, "modelId");
  }

  /** A total without the prompt cache's share. */
  public UsageTotal(String userId, String providerId, String modelId, long turns, long calls,
      long errors, long promptTokens, long completionTokens, long reasoningTokens,
      long durationMs, long costNanos) {
    this(userId, providerId, modelId, turns, calls, errors, promptTokens, completionTokens,
        reasoningTokens, durationMs, costNanos, 0, 0);
  }

  /** A total without a cost. */
  public UsageTotal(String userId, String providerId, String modelId, long turns, long calls,
      long errors, long promptTokens, long completionTokens, long reasoningTokens,
      long durationMs) {
    this(userId, providerId, modelId, turns, calls, errors, promptTokens, completionTokens,
        reasoningTokens, durationMs, 0);
  }

  /** One ended turn's usage, without a cost. */
  public static UsageTotal ofTurn(
      String userId, TurnModel model, TurnStats stats, boolean error) {
    return ofTurn(userId, model, stats, error, null);
  }

  /**
   * One ended turn's usage, costed at {@code price} ({@code null}: no cost), its cache reads and
   * writes at the price's cache prices (as given, else {@link ModelPrice#FALLBACK_RATIOS}).
   */
  public static UsageTotal ofTurn(
      String userId, TurnModel model, TurnStats stats, boolean error, ModelPrice price) {
    return ofTurn(userId, model, stats, error, price, ModelPrice.FALLBACK_RATIOS);
  }

  /**
   * One ended turn's usage, costed at {@code price} ({@code null}: no cost) with
   * {@code ratios} standing in for the cache prices the price does not give (the provider's
   * published ratios: {@link ModelPrice.CacheRatios#of}).
   */
  public static UsageTotal ofTurn(String userId, TurnModel model, TurnStats stats,
      boolean error, ModelPrice price, ModelPrice.CacheRatios ratios) {
    TurnStats s = stats == null ? TurnStats.EMPTY : stats;
    long cost = price == null ? 0 : price.costNanos(s.promptTokens(), s.cacheReadTokens(),
        s.cacheWriteTokens(), s.completionTokens(), ratios);
    return new UsageTotal(userId, model.providerId(), model.modelId(), 1, s.llmCalls(),
        error ? 1 : 0, s.promptTokens(), s.completionTokens(), s.thinkingTokenCount(),
        s.durationMs(), cost, s.cacheReadTokens(), s.cacheWriteTokens());
  }

  /** This total with {@code other}'s counts added (the key stays this one's). */
  public UsageTotal plus(UsageTotal other) {
    return new UsageTotal(userId, providerId, modelId, turns + other.turns,
        calls + other.calls, errors + other.errors, promptTokens + other.promptTokens,
        completionTokens + other.completionTokens, reasoningTokens + other.reasoningTokens,
        durationMs + other.durationMs, costNanos + other.costNanos,
        cacheReadTokens + other.cacheReadTokens, cacheWriteTokens + other.cacheWriteTokens);
  }
}
