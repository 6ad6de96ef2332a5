package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One ordered block of a chat turn (seed 003, {@code IChatTurnBlock}): a closed union of
 * {@link Thinking}, {@link Responding}, {@link Tool}, {@link Diff} (what the turn did to the
 * project's files, at its end) and {@link Compaction}.
 *
 * <p>On the wire and in stores a block is {@code {"seq": 0, "mode": "thinking"|"responding"|"tool"|
 * "diff"|"compaction", "createdAt": "...", "content": ...}}, where {@code content} is a string for
 * text blocks, a {@link ToolCall} object for tool blocks, a {@link TurnDiff} for diff blocks and a
 * {@link ContextCompaction} object for compaction blocks. {@code seq} is the block's position in its turn,
 * starting at 0; order always comes from it, never from timestamps.
 *
 * <p>A text block may be {@link #isSuperseded() superseded}: it was streamed by a model round that a drone's
 * crash interrupted and that was then done again. It is kept (the user saw it), written with
 * {@code "superseded": true}, shown apart, and left out of the model's context.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "mode")
@JsonSubTypes({
  @JsonSubTypes.Type(value = TurnBlock.Thinking.class, name = "thinking"),
  @JsonSubTypes.Type(value = TurnBlock.Responding.class, name = "responding"),
  @JsonSubTypes.Type(value = TurnBlock.Tool.class, name = "tool"),
  @JsonSubTypes.Type(value = TurnBlock.Diff.class, name = "diff"),
  @JsonSubTypes.Type(value = TurnBlock.Compaction.class, name = "compaction")
})
public sealed interface TurnBlock {
  /** The block's position in its turn, from 0. */
  int seq();

  /** When the block was started. */
  Instant createdAt();

  /**
   * Whether the block belongs to a model round that was interrupted and done again; only text
   * blocks can be. Written on the wire only when {@code true}.
   */
  @JsonIgnore
  default boolean isSuperseded() {
    return false;
  }

  /** This block marked {@link #isSuperseded() superseded}; a tool block, which is never superseded, as is. */
  default TurnBlock supersede() {
    if (this instanceof Thinking t) {
      return new Thinking(t.seq(), t.createdAt(), t.content(), true, t.reasoning());
    }
    if (this instanceof Responding r) {
      return new Responding(r.seq(), r.createdAt(), r.content(), true);
    }
    return this;
  }

  /** The block's mode as it is written on the wire. */
  default String mode() {
    if (this instanceof Thinking) {
      return "thinking";
    }
    if (this instanceof Diff) {
      return "diff";
    }
    if (this instanceof Compaction) {
      return "compaction";
    }
    return this instanceof Responding ? "responding" : "tool";
  }

  /**
   * The model's reasoning.
   *
   * @param seq position in the turn
   * @param createdAt when the block started
   * @param content the thinking text
   * @param superseded {@code true} when a redone model round superseded it; otherwise null
   * @param reasoning the reasoning as the provider signed or encrypted it, sent back on the next
   *     turn to a provider of the same kind ({@link SignedReasoning}); written only when not empty
   */
  record Thinking(int seq, Instant createdAt, String content,
      @JsonInclude(JsonInclude.Include.NON_NULL) Boolean superseded,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SignedReasoning> reasoning)
      implements TurnBlock {
    public Thinking {
      checkSeq(seq);
      Objects.requireNonNull(createdAt, "createdAt");
      Objects.requireNonNull(content, "content");
      superseded = Boolean.TRUE.equals(superseded) ? Boolean.TRUE : null; // false: not written
      reasoning = reasoning == null ? List.of() : List.copyOf(reasoning);
    }

    /** A block without signed reasoning. */
    public Thinking(int seq, Instant createdAt, String content, Boolean superseded) {
      this(seq, createdAt, content, superseded, List.of());
    }

    /** A block that is not superseded, without signed reasoning. */
    public Thinking(int seq, Instant createdAt, String content) {
      this(seq, createdAt, content, null, List.of());
    }

    /** This block without its signed reasoning. */
    public Thinking withoutReasoning() {
      return reasoning.isEmpty() ? this : new Thinking(seq, createdAt, content, superseded);
    }

    /** This block with {@code more} signed reasoning after what it has. */
    public Thinking withReasoning(List<SignedReasoning> more) {
      List<SignedReasoning> all = new java.util.ArrayList<>(reasoning);
      all.addAll(more);
      return new Thinking(seq, createdAt, content, superseded, all);
    }

    @Override
    public boolean isSuperseded() {
      return superseded != null;
    }
  }

  /**
   * The model's reply text (Markdown).
   *
   * @param seq position in the turn
   * @param createdAt when the block started
   * @param content the reply text
   * @param superseded {@code true} when a redone model round superseded it; otherwise null
   */
  record Responding(int seq, Instant createdAt, String content,
      @JsonInclude(JsonInclude.Include.NON_NULL) Boolean superseded) implements TurnBlock {
    public Responding {
      checkSeq(seq);
      Objects.requireNonNull(createdAt, "createdAt");
      Objects.requireNonNull(content, "content");
      superseded = Boolean.TRUE.equals(superseded) ? Boolean.TRUE : null; // false: not written
    }

    /** A block that is not superseded. */
    public Responding(int seq, Instant createdAt, String content) {
      this(seq, createdAt, content, null);
    }

    @Override
    public boolean isSuperseded() {
      return superseded != null;
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

  /**
   * What the turn did to the project's files: added by the drone at the end of a turn that
   * changed any, after its other blocks (and, with {@link TurnDiff#revertOf()} set, the record
   * of an undo). Appended once, like a tool block, never saved over.
   *
   * @param seq position in the turn
   * @param createdAt when the block was added
   * @param content the changed files and their patch
   */
  record Diff(int seq, Instant createdAt, TurnDiff content) implements TurnBlock {
    public Diff {
      checkSeq(seq);
      Objects.requireNonNull(createdAt, "createdAt");
      Objects.requireNonNull(content, "content");
    }
  }

  /**
   * The session's context compacted: the oldest rounds summarized to fit the context budget. The
   * turns after it start from it (see {@link ContextCompaction}).
   *
   * @param seq position in the turn
   * @param createdAt when the compaction was made
   * @param content what was summarized, the summary, the tokens before and after
   */
  record Compaction(int seq, Instant createdAt, ContextCompaction content) implements TurnBlock {
    public Compaction {
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
