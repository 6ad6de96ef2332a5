package dev.gadget.core.agent;

import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import java.util.List;
import java.util.Objects;

/**
 * How an agent run ended.
 *
 * @param status why it ended
 * @param text the text of the model's last reply ({@code ""} if there was none)
 * @param message for anything but {@link Status#FINISHED}, a sentence for the user saying what
 *     happened (which limit was hit, what failed); {@code null} when finished
 * @param stats tokens by kind, tool calls, round trips and duration
 * @param toolCalls every tool that ran, with its result, in order
 * @param messages what this turn adds to the session's context, as seed 002 stores it: the user's
 *     prompt, each assistant reply (thinking merged as {@code <thinking>…</thinking>}), and each
 *     tool result as a {@link dev.gadget.core.model.Role#TOOL} message whose first line is the call
 *     ({@code name arguments}) and the rest its result
 * @param error the exception behind {@link Status#ERROR}, or {@code null}
 * @param finishReason why the model's last reply stopped ({@link FinishReason#LENGTH} when it was
 *     cut at the model's output limit, {@link FinishReason#CONTENT_FILTER} when the provider
 *     filtered or the model refused), or {@code null} when no reply came
 */
public record AgentOutcome(
    Status status,
    String text,
    String message,
    TurnStats stats,
    List<ToolCall> toolCalls,
    List<ChatMessage> messages,
    Throwable error,
    FinishReason finishReason) {
  /** An outcome without a model's finish reason. */
  public AgentOutcome(Status status, String text, String message, TurnStats stats,
      List<ToolCall> toolCalls, List<ChatMessage> messages, Throwable error) {
    this(status, text, message, stats, toolCalls, messages, error, null);
  }

  public AgentOutcome {
    Objects.requireNonNull(status, "status");
    text = text == null ? "" : text;
    stats = stats == null ? TurnStats.EMPTY : stats;
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    messages = messages == null ? List.of() : List.copyOf(messages);
  }

  /** Why a run ended. */
  public enum Status {
    /** The model answered without asking for a tool. */
    FINISHED,
    /** The model call failed, or the loop did. */
    ERROR,
    /** {@link AgentRun#cancel()} was called. */
    CANCELLED,
    /** A limit of {@link AgentLimits} ended the turn. */
    LIMIT_HIT;

    /**
     * The chat turn status to store: {@link #LIMIT_HIT} is stored as {@link TurnStatus#ERROR}
     * (the turn did not finish its task), with {@link AgentOutcome#message()} as the turn's error.
     */
    public TurnStatus toTurnStatus() {
      switch (this) {
        case FINISHED:
          return TurnStatus.FINISHED;
        case CANCELLED:
          return TurnStatus.CANCELLED;
        default:
          return TurnStatus.ERROR;
      }
    }
  }
}
