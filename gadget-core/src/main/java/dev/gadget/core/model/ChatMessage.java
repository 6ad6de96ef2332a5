package dev.gadget.core.model;

import java.time.Instant;
import java.util.Objects;

/**
 * One message of a chat session's context (seed 002, {@code IChatMessage}).
 *
 * <p>When an assistant message carries thinking, the thinking is merged into {@code content} as
 * {@code <thinking>…</thinking>} ahead of the reply; see {@link #assistant(Instant, String, String)}.
 *
 * @param createdAt when the message was written
 * @param role who wrote it
 * @param content the text
 */
public record ChatMessage(Instant createdAt, Role role, String content) {
  public ChatMessage {
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
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
}
