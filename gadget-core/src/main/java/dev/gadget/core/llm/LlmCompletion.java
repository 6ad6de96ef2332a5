package dev.gadget.core.llm;

import java.util.List;
import java.util.Objects;

/**
 * A finished (or, with {@link LlmListener#onError}, partial) reply.
 *
 * @param text the reply text, assembled
 * @param thinking the reasoning, assembled ({@code ""} when none)
 * @param toolCalls the tool calls, in order
 * @param usage token counts and durations
 * @param finishReason why the model stopped
 */
public record LlmCompletion(
    String text,
    String thinking,
    List<LlmToolCall> toolCalls,
    LlmUsage usage,
    FinishReason finishReason) {
  public LlmCompletion {
    text = text == null ? "" : text;
    thinking = thinking == null ? "" : thinking;
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    usage = usage == null ? LlmUsage.NONE : usage;
    Objects.requireNonNull(finishReason, "finishReason");
  }
}
