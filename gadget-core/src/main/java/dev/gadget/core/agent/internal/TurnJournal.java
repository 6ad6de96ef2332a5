package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmUsage;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The record of one turn: the messages it adds to the session, the tools that ran, tokens and
 * round trips; makes the {@link AgentOutcome}. Written on the run's thread only.
 */
public final class TurnJournal {
  private final Clock clock;
  private final Instant startedAt;
  private final List<ToolCall> toolCalls = new ArrayList<>();
  private final List<ChatMessage> chatMessages = new ArrayList<>();
  private long promptTokens;
  private long completionTokens;
  private long thinkingTokens;
  private long cacheReadTokens;
  private long cacheWriteTokens;
  private int llmCalls;
  private long contextTokens;
  private long contextBudget;
  private int toolsLoaded;
  private int toolsDeferred;
  private String lastText = "";
  private dev.gadget.core.llm.FinishReason lastFinish;
  private Long loadMs;
  private Long promptEvalMs;
  private Long evalMs;
  private final List<TurnStats.ToolDuration> toolDurations = new ArrayList<>();

  /** A journal whose turn starts now. */
  public TurnJournal(Clock clock) {
    this.clock = clock;
    this.startedAt = clock.instant();
  }

  /** The user's prompt. */
  public void prompt(String text) {
    chatMessages.add(new ChatMessage(clock.instant(), Role.USER, text));
  }

  /** A round trip to the model begins. */
  public void modelCalled() {
    llmCalls++;
  }

  /** The run's context budget, in tokens. */
  void budget(int tokens) {
    contextBudget = tokens;
  }

  /** The measured tokens of the context last sent. */
  void context(int tokens) {
    contextTokens = tokens;
  }

  /** The model call about to be sent offers {@code loaded} tools, {@code deferred} more. */
  void tools(int loaded, int deferred) {
    toolsLoaded = loaded;
    toolsDeferred = deferred;
  }

  /** Tokens a model call used, whole or partial. */
  public void count(LlmUsage usage) {
    promptTokens += usage.promptTokens();
    completionTokens += usage.completionTokens();
    thinkingTokens += usage.reasoningTokens();
    cacheReadTokens += usage.cacheReadTokens();
    cacheWriteTokens += usage.cacheWriteTokens();
    loadMs = plus(loadMs, usage.loadDuration());
    promptEvalMs = plus(promptEvalMs, usage.promptEvalDuration());
    evalMs = plus(evalMs, usage.evalDuration());
  }

  private static Long plus(Long sum, java.time.Duration d) {
    if (d == null) {
      return sum;
    }
    return Long.valueOf((sum == null ? 0L : sum.longValue()) + d.toMillis());
  }

  /** How long the tool of {@code call} ran. */
  public void toolTook(ToolCall call, java.time.Duration duration) {
    toolDurations.add(new TurnStats.ToolDuration(call.callId(), call.name(),
        duration.toMillis()));
  }

  /** The turn's stats so far: tokens, calls, time, Ollama's durations, the tools' durations. */
  public TurnStats stats() {
    long ms = Math.max(0, Duration.between(startedAt, clock.instant()).toMillis());
    return new TurnStats(promptTokens, completionTokens, thinkingTokens, toolCalls.size(),
        llmCalls, ms, contextTokens, contextBudget)
        .withProviderDurations(loadMs, promptEvalMs, evalMs).withToolDurations(toolDurations)
        .withCache(cacheReadTokens, cacheWriteTokens).withTools(toolsLoaded, toolsDeferred);
  }

  /** The model's reply: its text is the turn's text so far; with text or thinking it is kept. */
  public void reply(LlmCompletion reply) {
    lastText = reply.text();
    lastFinish = reply.finishReason();
    if (!reply.text().isEmpty() || !reply.thinking().isEmpty()) {
      chatMessages.add(ChatMessage.assistant(clock.instant(), reply.thinking(), reply.text()));
    }
  }

  /** A tool has run: {@code finished} carries its result. */
  public void toolRan(ToolCall finished) {
    toolCalls.add(finished);
    chatMessages.add(new ChatMessage(clock.instant(), Role.TOOL,
        finished.name() + " " + finished.parameters() + "\n" + finished.response()));
  }

  /** The outcome of the turn as it stands. */
  public AgentOutcome outcome(AgentOutcome.Status status, String message, Throwable error) {
    TurnStats stats = stats();
    return new AgentOutcome(status, lastText, message, stats, toolCalls, chatMessages, error,
        lastFinish);
  }
}
