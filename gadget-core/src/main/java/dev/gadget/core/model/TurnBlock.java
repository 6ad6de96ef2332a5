package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Instant;
import java.util.Objects;

/**
 * One ordered block of a chat turn (seed 003, {@code IChatTurnBlock}): a closed union of
 * {@link Thinking}, {@link Responding} and {@link Tool}.
 *
 * <p>On the wire and in stores a block is {@code {"seq": 0, "mode": "thinking"|"responding"|"tool",
 * "createdAt": "...", "content": ...}}, where {@code content} is a string for text blocks and a
 * {@link ToolCall} object for tool blocks. {@code seq} is the block's position in its turn,
 * starting at 0; order always comes from it, never from timestamps.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "mode")
@JsonSubTypes({
  @JsonSubTypes.Type(value = TurnBlock.Thinking.class, name = "thinking"),
  @JsonSubTypes.Type(value = TurnBlock.Responding.class, name = "responding"),
  @JsonSubTypes.Type(value = TurnBlock.Tool.class, name = "tool")
})
public sealed interface TurnBlock {
  /** The block's position in its turn, from 0. */
  int seq();

  /** When the block was started. */
  Instant createdAt();

  /** The block's mode as it is written on the wire. */
  default String mode() {
    if (this instanceof Thinking) {
      return "thinking";
    }
    return this instanceof Responding ? "responding" : "tool";
  }

  /**
   * The model's reasoning.
   *
   * @param seq position in the turn
   * @param createdAt when the block started
   * @param content the thinking text
   */
  record Thinking(int seq, Instant createdAt, String content) implements TurnBlock {
    public Thinking {
      checkSeq(seq);
      Objects.requireNonNull(createdAt, "createdAt");
      Objects.requireNonNull(content, "content");
    }
  }

  /**
   * The model's reply text (Markdown).
   *
   * @param seq position in the turn
   * @param createdAt when the block started
   * @param content the reply text
   */
  record Responding(int seq, Instant createdAt, String content) implements TurnBlock {
    public Responding {
      checkSeq(seq);
      Objects.requireNonNull(createdAt, "createdAt");
      Objects.requireNonNull(content, "content");
    }
  }

  /**
   * A tool call and its result.
   *
   * @param seq position in the turn
   * @param createdAt when the block was added
   * @param content the call
   */
  record Tool(int seq, Instant createdAt, ToolCall content) implements TurnBlock {
    public Tool {
      checkSeq(seq);
      Objects.requireNonNull(createdAt, "createdAt");
      Objects.requireNonNull(content, "content");
    }
  }

  private static void checkSeq(int seq) {
    if (seq < 0) {
      throw new IllegalArgumentException("seq < 0: " + seq);
    }
  }
}
