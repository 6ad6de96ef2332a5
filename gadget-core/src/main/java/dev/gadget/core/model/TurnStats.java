package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;

/**
 * What a turn cost (seeds 001/002: token counting and duration tracking). While the turn runs,
 * the drone sends these as they grow ({@code turnStats}); the turn's end carries the final ones.
 *
 * @param promptTokens input tokens over all the turn's LLM calls
 * @param completionTokens output tokens, thinking included
 * @param thinkingTokenCount the part of the output that was thinking (seed 000's name)
 * @param toolCallCount how many tools ran
 * @param llmCalls how many round trips to the LLM the loop made
 * @param durationMs wall time from start to end (so far, while it runs)
 * @param contextTokens the measured tokens of the context the last model call sent (0: not
 *     measured)
 * @param contextBudget the most tokens the context may take: the model's context window less the
 *     reply's reserve, or the loop's configured budget (0: not known)
 * @param crashRetries how many times a drone's crash made the server retry the turn (seed 001,
 *     "Drone crashed during processing - retrying")
 * @param loadDurationMs Ollama's {@code load_duration} over the turn's calls, in milliseconds, or
 *     {@code null} when the provider reported none
 * @param promptEvalDurationMs Ollama's {@code prompt_eval_duration} summed, or {@code null}
 * @param evalDurationMs Ollama's {@code eval_duration} summed, or {@code null}
 * @param toolDurations each tool run's duration, in call order (empty is not written)
 * @param cacheReadTokens the part of {@code promptTokens} the provider read from its prompt cache
 *     (0, not written, when it said none)
 * @param cacheWriteTokens the part of {@code promptTokens} the provider wrote to its prompt cache
 *     (Anthropic's cache writes; 0, not written, elsewhere)
 * @param toolsLoaded how many tools the model could call in the last model call (the tools it
 *     was offered, {@code search_tools} not counted; 0, not written, when not told)
 * @param toolsDeferred how many more it could have loaded with {@code search_tools} then (0, not
 *     written, when none were deferred)
 */
@JsonInclude(JsonInclude.Include.NON_DEFAULT)
public record TurnStats(
    @JsonInclude(JsonInclude.Include.ALWAYS) long promptTokens,
    @JsonInclude(JsonInclude.Include.ALWAYS) long completionTokens,
    @JsonInclude(JsonInclude.Include.ALWAYS) long thinkingTokenCount,
    @JsonInclude(JsonInclude.Include.ALWAYS) int toolCallCount,
    @JsonInclude(JsonInclude.Include.ALWAYS) int llmCalls,
    @JsonInclude(JsonInclude.Include.ALWAYS) long durationMs,
    @JsonInclude(JsonInclude.Include.ALWAYS) long contextTokens,
    @JsonInclude(JsonInclude.Include.ALWAYS) long contextBudget,
    @JsonInclude(JsonInclude.Include.ALWAYS) int crashRetries,
    Long loadDurationMs,
    Long promptEvalDurationMs,
    Long evalDurationMs,
    List<ToolDuration> toolDurations,
    long cacheReadTokens,
    long cacheWriteTokens,
    int toolsLoaded,
    int toolsDeferred) {
  /** All zero. */
  public static final TurnStats EMPTY = new TurnStats(0, 0, 0, 0, 0, 0);

  @JsonCreator // the canonical constructor, of the several
  public TurnStats {
    toolDurations = toolDurations == null ? List.of() : List.copyOf(toolDurations);
  }

  /** All but the tools' counts. */
  public TurnStats(long promptTokens, long completionTokens, long thinkingTokenCount,
      int toolCallCount, int llmCalls, long durationMs, long contextTokens, long contextBudget,
      int crashRetries, Long loadDurationMs, Long promptEvalDurationMs, Long evalDurationMs,
      List<ToolDuration> toolDurations, long cacheReadTokens, long cacheWriteTokens) {
    this(promptTokens, completionTokens, thinkingTokenCount, toolCallCount, llmCalls, durationMs,
        contextTokens, contextBudget, crashRetries, loadDurationMs, promptEvalDurationMs,
        evalDurationMs, toolDurations, cacheReadTokens, cacheWriteTokens, 0, 0);
  }

  /** Counts, context, crash retries and durations, without the prompt cache's share. */
  public TurnStats(long promptTokens, long completionTokens, long thinkingTokenCount,
      int toolCallCount, int llmCalls, long durationMs, long contextTokens, long contextBudget,
      int crashRetries, Long loadDurationMs, Long promptEvalDurationMs, Long evalDurationMs,
      List<ToolDuration> toolDurations) {
    this(promptTokens, completionTokens, thinkingTokenCount, toolCallCount, llmCalls, durationMs,
        contextTokens, contextBudget, crashRetries, loadDurationMs, promptEvalDurationMs,
        evalDurationMs, toolDurations, 0, 0);
  }

  /** Token and call counts only (no context, crash retries, provider or tool durations). */
  public TurnStats(long promptTokens, long completionTokens, long thinkingTokenCount,
      int toolCallCount, int llmCalls, long durationMs) {
    this(promptTokens, completionTokens, thinkingTokenCount, toolCallCount, llmCalls, durationMs,
        0, 0);
  }

  /** Token and call counts with the context's measure and budget. */
  public TurnStats(long promptTokens, long completionTokens, long thinkingTokenCount,
      int toolCallCount, int llmCalls, long durationMs, long contextTokens, long contextBudget) {
    this(promptTokens, completionTokens, thinkingTokenCount, toolCallCount, llmCalls, durationMs,
        contextTokens, contextBudget, 0, null, null, null, List.of());
  }

  /** Counts with crash retries and provider and tool durations, without the context. */
  public TurnStats(long promptTokens, long completionTokens, long thinkingTokenCount,
      int toolCallCount, int llmCalls, long durationMs, int crashRetries, Long loadDurationMs,
      Long promptEvalDurationMs, Long evalDurationMs, List<ToolDuration> toolDurations) {
    this(promptTokens, completionTokens, thinkingTokenCount, toolCallCount, llmCalls, durationMs,
        0, 0, crashRetries, loadDurationMs, promptEvalDurationMs, evalDurationMs, toolDurations);
  }

  /** These stats with {@code n} crash retries. */
  public TurnStats withCrashRetries(int n) {
    return new TurnStats(promptTokens, completionTokens, thinkingTokenCount, toolCallCount,
        llmCalls, durationMs, contextTokens, contextBudget, n, loadDurationMs,
        promptEvalDurationMs, evalDurationMs, toolDurations, cacheReadTokens, cacheWriteTokens,
        toolsLoaded, toolsDeferred);
  }

  /** These stats with Ollama's durations (milliseconds, each {@code null} when unknown). */
  public TurnStats withProviderDurations(Long loadMs, Long promptEvalMs, Long evalMs) {
    return new TurnStats(promptTokens, completionTokens, thinkingTokenCount, toolCallCount,
        llmCalls, durationMs, contextTokens, contextBudget, crashRetries, loadMs, promptEvalMs,
        evalMs, toolDurations, cacheReadTokens, cacheWriteTokens, toolsLoaded, toolsDeferred);
  }

  /** These stats with {@code durations} as the tools' durations. */
  public TurnStats withToolDurations(List<ToolDuration> durations) {
    return new TurnStats(promptTokens, completionTokens, thinkingTokenCount, toolCallCount,
        llmCalls, durationMs, contextTokens, contextBudget, crashRetries, loadDurationMs,
        promptEvalDurationMs, evalDurationMs, new ArrayList<>(durations), cacheReadTokens,
        cacheWriteTokens, toolsLoaded, toolsDeferred);
  }

  /** These stats with the context's measure and budget. */
  public TurnStats withContext(long tokens, long budget) {
    return new TurnStats(promptTokens, completionTokens, thinkingTokenCount, toolCallCount,
        llmCalls, durationMs, tokens, budget, crashRetries, loadDurationMs, promptEvalDurationMs,
        evalDurationMs, toolDurations, cacheReadTokens, cacheWriteTokens,
        toolsLoaded, toolsDeferred);
  }

  /** These stats with the prompt cache's reads and writes (tokens). */
  public TurnStats withCache(long readTokens, long writeTokens) {
    return new TurnStats(promptTokens, completionTokens, thinkingTokenCount, toolCallCount,
        llmCalls, durationMs, contextTokens, contextBudget, crashRetries, loadDurationMs,
        promptEvalDurationMs, evalDurationMs, toolDurations, readTokens, writeTokens,
        toolsLoaded, toolsDeferred);
  }

  /** These stats with the tools' counts of the last model call. */
  public TurnStats withTools(int loaded, int deferred) {
    return new TurnStats(promptTokens, completionTokens, thinkingTokenCount, toolCallCount,
        llmCalls, durationMs, contextTokens, contextBudget, crashRetries, loadDurationMs,
        promptEvalDurationMs, evalDurationMs, toolDurations, cacheReadTokens, cacheWriteTokens,
        loaded, deferred);
  }

  /**
   * {@code "10 tools loaded, 302 deferred"} when tools were deferred in the turn's last model
   * call, else "".
   */
  public String toolsSummary() {
    return toolsDeferred == 0 ? "" : toolsLoaded + " tools loaded, " + toolsDeferred
        + " deferred";
  }

  /**
   * The share of the prompt tokens read from the provider's cache, from 0 to 1; 0 when there
   * were none.
   */
  public double cacheHitRate() {
    return promptTokens <= 0 ? 0 : Math.min(1.0, (double) cacheReadTokens / promptTokens);
  }

  /**
   * How long one tool run took.
   *
   * @param callId the call
   * @param name the tool
   * @param durationMs how long it ran, in milliseconds
   */
  public record ToolDuration(String callId, String name, long durationMs) {}
}
