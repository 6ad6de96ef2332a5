package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One message of a chat session's context (seed 002, {@code IChatMessage}), as a work order
 * carries it and as the model saw it: a user's prompt (with its {@link #user() user}), an
 * assistant reply (its reasoning apart in {@link #thinking()}, its {@link #toolCalls() tool
 * calls}), or a tool's result (answering {@link #toolCallId()}).
 *
 * <p>Where a provider has no field for reasoning, the client merges {@link #thinking()} into the
 * content as {@code <thinking>…</thinking>} ahead of the reply, as seed 002 says;
 * {@link #assistant(Instant, String, String)} does that merge for a message that goes nowhere
 * else. The optional fields are written only when set.
 *
 * @param createdAt when the message was written
 * @param role who wrote it
 * @param content the text
 * @param thinking an assistant message's reasoning, or {@code null}
 * @param toolCalls the tools an assistant message called, without their results (empty
 *     otherwise); each is answered by a {@link Role#TOOL} message further on
 * @param toolCallId for a tool message, the {@link ToolCall#callId()} it answers
 * @param toolName for a tool message, the tool's name
 * @param turnId the stored turn the message comes from, or {@code null}
 * @param user for a user message, who wrote it (seed 001's {@code buildSessionContext}), or
 *     {@code null}
 * @param reasoning an assistant message's reasoning as its provider signed or encrypted it
 *     ({@link SignedReasoning}), sent back only to a provider of the same kind; written only when
 *     not empty
 */
public record ChatMessage(Instant createdAt, Role role, String content, String thinking,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ToolCall> toolCalls, String toolCallId, String toolName, String turnId, Author user,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SignedReasoning> reasoning) {
  public ChatMessage {
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    thinking = thinking == null || thinking.isEmpty() ? null : thinking;
    reasoning = reasoning == null ? List.of() : List.copyOf(reasoning);
  }

  /** A message without signed reasoning. */
  public ChatMessage(Instant createdAt, Role role, String content, String thinking,
      List<ToolCall> toolCalls, String toolCallId, String toolName, String turnId, Author user) {
    this(createdAt, role, content, thinking, toolCalls, toolCallId, toolName, turnId, user,
        List.of());
  }

  /** A plain message: no reasoning, tool calls, turn or user. */
  public ChatMessage(Instant createdAt, Role role, String content) {
    this(createdAt, role, content, null, List.of(), null, null, null, null);
  }

  /**
   * An assistant message whose thinking, if any, is merged into the content as seed 002 says:
   * {@code <thinking>thinking</thinking>\nreply}.
   */
  public static ChatMessage assistant(Instant createdAt, String thinking, String reply) {
    String text = reply == null ? "" : reply;
    if (thinking != null && !thinking.isEmpty()) {
      text = "<thinking>" + thinking + "</thinking>\n" + text;
    }
    return new ChatMessage(createdAt, Role.ASSISTANT, text);
  }

  /**
   * Who wrote a user message (seed 001).
   *
   * @param id the user's id
   * @param username their login name
   * @param displayName the name the page shows
   */
  public record Author(@JsonProperty("_id") String id, String username, String displayName) {
    public Author {
      Objects.requireNonNull(id, "id");
    }

    /** The author record of {@code user}. */
    public static Author of(User user) {
      return new Author(user.id(), user.username(), user.displayName());
    }
  }
}
