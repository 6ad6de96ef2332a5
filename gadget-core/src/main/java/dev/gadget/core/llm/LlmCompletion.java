package dev.gadget.core.llm;

import java.util.List;
import java.util.Objects;

/**
 * A finished (or, with {@link LlmListener#onError}, partial) reply.
 *
 * @param text the reply text, assembled
 * @param thinking the reasoning, assembled ({@code ""} when none)
 * @param toolCalls the tool calls, in order
 * @param usage token counts and durations ({@link LlmUsage#NONE} when the server sent none)
 * @param finishReason why the model stopped
 * @param thinkingBlocks the reasoning as signed blocks, for servers that want it back unchanged
 *     (Anthropic); empty for the others. Copy it onto the assistant message with
 *     {@link LlmMessage#assistant(LlmCompletion)}.
 * @param providerFinishReason the finish reason exactly as the server sent it (such as
 *     {@code "end_turn"}, {@code "stop"} or {@code "max_tokens"}), or {@code null} when it sent
 *     none
 */
public record LlmCompletion(
    String text,
    String thinking,
    List<LlmToolCall> toolCalls,
    LlmUsage usage,
    FinishReason finishReason,
    List<ThinkingBlock> thinkingBlocks,
    String providerFinishReason) {
  public LlmCompletion {
    text = text == null ? "" : text;
    thinking = thinking == null ? "" : thinking;
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    usage = usage == null ? LlmUsage.NONE : usage;
    Objects.requireNonNull(finishReason, "finishReason");
    thinkingBlocks = thinkingBlocks == null ? List.of() : List.copyOf(thinkingBlocks);
  }

  /**
   * A reply without signed reasoning or the server's own finish reason.
   *
   * @param text the reply text
   * @param thinking the reasoning ({@code ""} when none)
   * @param toolCalls the tool calls, in order
   * @param usage token counts and durations
   * @param finishReason why the model stopped
   */
  public LlmCompletion(String text, String thinking, List<LlmToolCall> toolCalls, LlmUsage usage,
      FinishReason finishReason) {
    this(text, thinking, toolCalls, usage, finishReason, List.of(), null);
  }
}
