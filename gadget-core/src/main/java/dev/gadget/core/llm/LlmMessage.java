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
 * @param thinkingBlocks an assistant message's signed reasoning as the server returned it
 *     ({@link LlmCompletion#thinkingBlocks()}), sent back unchanged to servers that verify it
 *     (Anthropic); empty otherwise
 */
public record LlmMessage(
    Role role,
    String content,
    String thinking,
    List<LlmToolCall> toolCalls,
    String toolCallId,
    String toolName,
    List<ThinkingBlock> thinkingBlocks) {
  public LlmMessage {
    Objects.requireNonNull(role, "role");
    content = content == null ? "" : content;
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    if (role == Role.TOOL) {
      Objects.requireNonNull(toolCallId, "toolCallId");
    }
    thinkingBlocks = thinkingBlocks == null ? List.of() : List.copyOf(thinkingBlocks);
  }

  /**
   * A message without signed reasoning.
   *
   * @param role who wrote it
   * @param content the text
   * @param thinking the assistant's reasoning, or {@code null}
   * @param toolCalls the tools an assistant message called
   * @param toolCallId for a tool message, the call it answers
   * @param toolName for a tool message, the tool's name
   */
  public LlmMessage(Role role, String content, String thinking, List<LlmToolCall> toolCalls,
      String toolCallId, String toolName) {
    this(role, content, thinking, toolCalls, toolCallId, toolName, List.of());
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

  /**
   * The assistant message that records {@code reply} in the conversation: its text, reasoning,
   * signed reasoning blocks and tool calls, ready to be sent back in the next request.
   */
  public static LlmMessage assistant(LlmCompletion reply) {
    return new LlmMessage(Role.ASSISTANT, reply.text(),
        reply.thinking().isEmpty() ? null : reply.thinking(), reply.toolCalls(), null, null,
        reply.thinkingBlocks());
  }

  /** A tool result answering {@code call}. */
  public static LlmMessage tool(LlmToolCall call, String result) {
    return new LlmMessage(Role.TOOL, result, null, List.of(), call.id(), call.name());
  }

  /** This message with other content, everything else kept. */
  public LlmMessage withContent(String newContent) {
    return new LlmMessage(role, newContent, thinking, toolCalls, toolCallId, toolName,
        thinkingBlocks);
  }

  /** This message with other tool calls, everything else kept. */
  public LlmMessage withToolCalls(List<LlmToolCall> calls) {
    return new LlmMessage(role, content, thinking, calls, toolCallId, toolName, thinkingBlocks);
  }
}
