package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.ContextPruner;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmUsage;
import java.util.List;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's context budget and measure. The budget is the model's context window (the request's
 * {@code contextWindow}, else what the provider says, else none) less a reserve for the reply
 * ({@code maxTokens} when set, else a quarter of the window up to 8,192 tokens); with no window
 * known it is the pruner's budget. A request is measured as the estimate of its messages and tool
 * definitions ({@link ContextPruner#estimateTokens}), scaled up when the provider reported more
 * prompt tokens than estimated for an earlier request (never down, and at most fourfold). Used on
 * the run's thread.
 */
public final class ContextMeter {
  private static final Logger log = LoggerFactory.getLogger(ContextMeter.class);
  /** The reply reserve when the request sets no {@code maxTokens}: at most this. */
  static final int MAX_DEFAULT_RESERVE = 8192;
  private static final double MAX_RATIO = 4.0;

  private final int window;
  private final int budget;
  private int toolTokens;
  private double ratio = 1.0;
  private int lastSent;

  ContextMeter(int window, int budget, int toolTokens) {
    this.window = window;
    this.budget = Math.max(1, budget);
    this.toolTokens = toolTokens;
  }

  /** The meter of {@code request}'s run. Asks the provider for the window when it is not set. */
  static ContextMeter of(LoopSettings settings, AgentRequest request) {
    Integer window = request.params().contextWindow();
    if (window == null) {
      try {
        OptionalInt said = settings.llm().contextWindow(request.model());
        window = said.isPresent() ? said.getAsInt() : null;
      } catch (RuntimeException e) {
        log.debug("the client could not say the context window of {}: {}", request.model(),
            e.toString());
      }
    }
    int tools = settings.catalog().tokens();
    if (window == null) {
      return new ContextMeter(0, settings.pruner().tokenBudget(), tools);
    }
    Integer max = request.params().maxTokens();
    int reserve = max != null ? max : Math.min(MAX_DEFAULT_RESERVE, window / 4);
    return new ContextMeter(window, Math.max(window / 4, window - reserve), tools);
  }

  /** The model's context window, or 0 when not known. */
  public int window() {
    return window;
  }

  /** The most tokens a request may take. */
  public int budget() {
    return budget;
  }

  /** The tokens the last request sent measured (0 before the first). */
  public int lastSent() {
    return lastSent;
  }

  /** The tools offered now measure {@code tokens} (estimated): counted in every measure. */
  void toolTokens(int tokens) {
    this.toolTokens = tokens;
  }

  /** The estimated tokens the messages alone may take, for the pruner. */
  int messageBudget() {
    return Math.max(1, (int) (budget / ratio) - toolTokens);
  }

  /** The measured tokens of a request of {@code messages} with the run's tools. */
  int measure(List<LlmMessage> messages) {
    long estimate = (long) ContextPruner.estimateTokens(messages) + toolTokens;
    return (int) Math.min(Integer.MAX_VALUE, Math.ceil(estimate * ratio));
  }

  /** The provider refused a request as too long: measures more strictly from now on. */
  void refused() {
    ratio = Math.min(MAX_RATIO, ratio * 1.25);
  }

  /** {@code messages} are sent: remembers their measure. */
  void sent(List<LlmMessage> messages) {
    lastSent = measure(messages);
  }

  /** The provider's count for the request of {@code messages}: learns from it. */
  void observe(List<LlmMessage> messages, LlmUsage usage) {
    if (usage == null || !usage.reported() || usage.promptTokens() <= 0) {
      return;
    }
    long estimate = (long) ContextPruner.estimateTokens(messages) + toolTokens;
    double seen = (double) usage.promptTokens() / Math.max(1, estimate);
    if (seen > ratio) {
      ratio = Math.min(MAX_RATIO, seen);
      lastSent = measure(messages);
    }
  }
}
