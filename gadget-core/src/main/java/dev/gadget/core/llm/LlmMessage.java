package dev.gadget.core.llm;

import dev.gadget.core.model.Role;
import java.util.List;
import java.util.Objects;

/**
 * One message of an LLM conversation.
 *
 * @param role who wrote it
 * @param content the text ({@code ""} when an assistant message only calls tools)
 * @param thinking the assistant's reasoning, sent back where a server requires it
 *     (DeepSeek-style {@code reasoning_content} on tool turns), or {@code null}
 * @param toolCalls the tools an assistant message called (empty otherwise)
 * @param toolCallId for a {@link Role#TOOL} message, the call it answers
 * @param toolName for a {@link Role#TOOL} message, the tool's name
 */
public record LlmMessage(
    Role role,
    String content,
    String thinking,
    List<LlmToolCall> toolCalls,
    String toolCallId,
    String toolName) {
  public LlmMessage {
    Objects.requireNonNull(role, "role");
    content = content == null ? "" : content;
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    if (role == Role.TOOL) {
      Objects.requireNonNull(toolCallId, "toolCallId");
    }
  }

  /** A system message. */
  public static LlmMessage system(String content) {
    return new LlmMessage(Role.SYSTEM, content, null, List.of(), null, null);
  }

  /** A user message. */
  public static LlmMessage user(String content) {
    return new LlmMessage(Role.USER, content, null, List.of(), null, null);
  }

  /** An assistant message. */
  public static LlmMessage assistant(String content, String thinking, List<LlmToolCall> calls) {
    return new LlmMessage(Role.ASSISTANT, content, thinking, calls, null, null);
  }

  /** A tool result answering {@code call}. */
  public static LlmMessage tool(LlmToolCall call, String result) {
    return new LlmMessage(Role.TOOL, result, null, List.of(), call.id(), call.name());
  }
}
