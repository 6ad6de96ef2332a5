package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** New versions of a turn: with one more block, or ended. */
final class Turns {
  private Turns() {}

  /** Refuses a tool or diff block to {@code saveBlock}: those are appended once. */
  static void requireSavable(TurnBlock block) {
    if (block instanceof TurnBlock.Tool || block instanceof TurnBlock.Diff) {
      throw new IllegalArgumentException("a " + block.mode()
          + " block is appended once, never saved over");
    }
  }

  /** Whether the turn already has a block with {@code seq} (its blocks are in seq order). */
  static boolean hasBlock(ChatTurn t, int seq) {
    return block(t, seq) != null;
  }

  /** The turn's block with {@code seq}, or null. */
  static TurnBlock block(ChatTurn t, int seq) {
    List<TurnBlock> blocks = t.blocks();
    int lo = 0;
    int hi = blocks.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int s = blocks.get(mid).seq();
      if (s == seq) {
        return blocks.get(mid);
      }
      if (s < seq) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return null;
  }

  /** The turn with text {@code block} in place of its block with the same seq, or added. */
  static ChatTurn withSavedBlock(ChatTurn t, TurnBlock block) {
    List<TurnBlock> blocks = new ArrayList<>(t.blocks());
    for (int i = 0; i < blocks.size(); i++) {
      if (blocks.get(i).seq() == block.seq()) {
        blocks.set(i, block);
        return new ChatTurn(t.id(), t.sessionId(), t.userId(), t.seq(), t.status(), t.prompt(),
            t.mode(), blocks, t.toolCalls(), t.stats(), t.createdAt(), t.finishedAt(),
            t.error(), t.droneId(), t.model());
      }
    }
    return withBlock(t, block);
  }

  /** The turn with {@code block} inserted in seq order; a tool block also adds its call. */
  static ChatTurn withBlock(ChatTurn t, TurnBlock block) {
    List<TurnBlock> blocks = new ArrayList<>(t.blocks().size() + 1);
    blocks.addAll(t.blocks());
    int at = blocks.size();
    while (at > 0 && blocks.get(at - 1).seq() > block.seq()) {
      at--;
    }
    blocks.add(at, block);
    List<ToolCall> calls = t.toolCalls();
    if (block instanceof TurnBlock.Tool tool) {
      calls = new ArrayList<>(calls);
      calls.add(tool.content());
    }
    return new ChatTurn(t.id(), t.sessionId(), t.userId(), t.seq(), t.status(), t.prompt(),
        t.mode(), blocks, calls, t.stats(), t.createdAt(), t.finishedAt(), t.error(),
        t.droneId(), t.model());
  }

  /** The turn ended with {@code status}; {@code null} stats keep the turn's. */
  static ChatTurn finished(ChatTurn t, TurnStatus status, TurnStats stats, String error,
      Instant finishedAt) {
    return new ChatTurn(t.id(), t.sessionId(), t.userId(), t.seq(), status, t.prompt(),
        t.mode(), t.blocks(), t.toolCalls(), stats == null ? t.stats() : stats, t.createdAt(),
        finishedAt, error, t.droneId(), t.model());
  }
}
