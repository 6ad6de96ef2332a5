package dev.gadget.core.stream;

import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.model.TurnBlock;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Aggregates a turn's stream chunks into ordered blocks (seed 003): tokens of one mode append to
 * the open block; a change of mode flushes it and opens a new one; a tool call (or a compaction,
 * or the turn's changes) flushes the open block and adds a tool (compaction, diff) block;
 * {@link #complete()} flushes whatever is left. Every finished block
 * goes to the {@link BlockSink} exactly once, with consecutive {@code seq} numbers.
 *
 * <p>A thinking chunk's {@link StreamChunk.Thinking#reasoning() signed reasoning} goes with the
 * open thinking block (a new one, empty, when none is open), never with a reply block.
 *
 * <p>Pure and not thread-safe: feed it from one thread, or guard it. Empty tokens are ignored and
 * never open a block.
 */
public final class BlockAggregator {
  private enum Mode { THINKING, RESPONDING }

  private final BlockSink sink;
  private final Clock clock;
  private final StringBuilder open = new StringBuilder();
  private final List<SignedReasoning> openReasoning = new ArrayList<>();
  private Mode mode;
  private Instant openedAt;
  private int nextSeq;
  private boolean completed;

  /** An aggregator numbering blocks from 0 and stamping them with the system clock. */
  public BlockAggregator(BlockSink sink) {
    this(sink, Clock.systemUTC(), 0);
  }

  /**
   * An aggregator numbering blocks from {@code firstSeq}, for a turn that already has blocks.
   *
   * @param sink where finished blocks go
   * @param clock stamps {@code createdAt}
   * @param firstSeq the {@code seq} of the first block this aggregator emits
   */
  public BlockAggregator(BlockSink sink, Clock clock, int firstSeq) {
    this.sink = Objects.requireNonNull(sink, "sink");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (firstSeq < 0) {
      throw new IllegalArgumentException("firstSeq < 0");
    }
    this.nextSeq = firstSeq;
  }

  /** Takes one chunk. */
  public void accept(StreamChunk chunk) {
    Objects.requireNonNull(chunk, "chunk");
    if (completed) {
      throw new IllegalStateException("aggregator already completed");
    }
    if (chunk instanceof StreamChunk.Thinking t) {
      append(Mode.THINKING, t.data());
      if (!t.reasoning().isEmpty()) {
        if (mode != Mode.THINKING) {
          flush();
          mode = Mode.THINKING;
          openedAt = clock.instant();
        }
        openReasoning.addAll(t.reasoning());
      }
    } else if (chunk instanceof StreamChunk.Response r) {
      append(Mode.RESPONDING, r.data());
    } else if (chunk instanceof StreamChunk.ToolCallChunk c) {
      flush();
      sink.accept(new TurnBlock.Tool(nextSeq++, clock.instant(), c.call()));
    } else if (chunk instanceof StreamChunk.Changes d) {
      flush();
      sink.accept(new TurnBlock.Diff(nextSeq++, clock.instant(), d.diff()));
    } else if (chunk instanceof StreamChunk.CompactionChunk c) {
      flush();
      sink.accept(new TurnBlock.Compaction(nextSeq++, clock.instant(), c.compaction()));
    }
  }

  /**
   * Flushes the open block, if any: the next token opens a new block even in the same mode (a
   * model round that starts again after a crash streams as new blocks).
   */
  public void closeBlock() {
    if (completed) {
      throw new IllegalStateException("aggregator already completed");
    }
    flush();
  }

  /** Flushes the open block. Further chunks are refused. Calling it again does nothing. */
  public void complete() {
    if (!completed) {
      flush();
      completed = true;
    }
  }

  /**
   * The block still being written, as it stands now, or empty when none is open. Lets a page that
   * joins mid-turn see the text that has not been flushed yet.
   */
  public Optional<TurnBlock> openBlock() {
    if (mode == null) {
      return Optional.empty();
    }
    return Optional.of(block(mode, nextSeq, openedAt, open.toString(), openReasoning));
  }

  /** The {@code seq} the next finished block will carry. */
  public int nextSeq() {
    return nextSeq;
  }

  private void append(Mode chunkMode, String text) {
    if (text.isEmpty()) {
      return;
    }
    if (mode != chunkMode) {
      flush();
      mode = chunkMode;
      openedAt = clock.instant();
    }
    open.append(text);
  }

  private void flush() {
    if (mode == null) {
      return;
    }
    TurnBlock block = block(mode, nextSeq++, openedAt, open.toString(), openReasoning);
    mode = null;
    openedAt = null;
    open.setLength(0);
    openReasoning.clear();
    sink.accept(block);
  }

  private static TurnBlock block(Mode mode, int seq, Instant at, String text,
      List<SignedReasoning> reasoning) {
    return mode == Mode.THINKING
        ? new TurnBlock.Thinking(seq, at, text, null, reasoning)
        : new TurnBlock.Responding(seq, at, text);
  }
}
