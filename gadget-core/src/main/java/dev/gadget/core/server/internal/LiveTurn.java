package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.ApprovalPayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.stream.BlockAggregator;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A turn running on a drone: its work order, the last sequence number applied, the block
 * aggregation that stores each finished block, and its timers. Every mutable field is guarded by
 * {@link #lock}, the chat session's lock.
 */
final class LiveTurn {
  private static final Logger log = LoggerFactory.getLogger(LiveTurn.class);

  final ChatTurn turn;
  final WorkOrder workOrder;
  final String droneId;
  /** The session's lock: guards every mutable field. */
  final Object lock;
  final BlockAggregator aggregator;
  private final ChatStore store;
  /** The text blocks stored since the last tool block: the current model round's. */
  private final List<TurnBlock> roundBlocks = new ArrayList<>();
  /** The seq and length of the open block as last checkpointed; -1: none. */
  private int checkpointSeq = -1;
  private int checkpointLength = -1;
  /** The most of a running tool's output kept for a page's snapshot (its tail). */
  static final int MAX_TOOL_OUTPUT = 64_000;

  /** The tool running now, for a page's snapshot; null: none. */
  Payloads.ToolStarted runningTool;
  /** What it printed so far (its tail, at most {@link #MAX_TOOL_OUTPUT}). */
  final StringBuilder toolOutput = new StringBuilder();
  long lastSeq = -1;
  Instant lastEventAt;
  boolean ended;
  ScheduledFuture<?> graceTimer;
  ScheduledFuture<?> cancelTimer;
  /** How many times a drone's crash made the server retry this turn. Guarded by {@link #lock}. */
  int crashRetries;
  /** The drone link that was last told to retry this turn. Guarded by {@link #lock}. */
  dev.gadget.core.transport.Connection retriedBy;
  /** The stats the drone last sent while the turn runs, or {@code null}. Guarded by lock. */
  dev.gadget.core.model.TurnStats liveStats;
  /** The calls that wait for approval, oldest first ({@link ApprovalDesk}). */
  final Map<String, PendingApproval> pendingApprovals = new LinkedHashMap<>();
  /** How each call that waited was decided. */
  final Map<String, ToolApproval> decidedApprovals = new HashMap<>();

  /** A call that waits for approval, and the timer that denies it. */
  record PendingApproval(ApprovalPayloads.ApprovalPending event, ScheduledFuture<?> expiry) {}

  LiveTurn(ChatTurn turn, WorkOrder workOrder, String droneId, Object lock, ChatStore store,
      Clock clock) {
    this.lock = lock;
    this.turn = turn;
    this.workOrder = workOrder;
    this.droneId = droneId;
    this.store = store;
    this.aggregator = new BlockAggregator(this::store, clock, 0);
    this.lastEventAt = clock.instant();
  }

  /** Follows which tool runs and what it printed, from a stream event's payload. */
  void followTool(Object payload) {
    if (payload instanceof Payloads.ToolStarted s) {
      runningTool = s;
      toolOutput.setLength(0);
    } else if (payload instanceof Payloads.ToolOutput o && runningTool != null
        && runningTool.callId().equals(o.callId())) {
      toolOutput.append(o.data());
      if (toolOutput.length() > MAX_TOOL_OUTPUT) {
        toolOutput.delete(0, toolOutput.length() - MAX_TOOL_OUTPUT);
      }
    } else if (payload instanceof Payloads.ToolCallEvent) {
      runningTool = null;
      toolOutput.setLength(0);
    }
  }

  /** Stops waiting for the drone to come back (under {@link #lock}). */
  void cancelGrace() {
    if (graceTimer != null) {
      graceTimer.cancel(false);
      graceTimer = null;
    }
  }

  /**
   * The current model round was interrupted and will stream again: closes the open block and
   * marks the round's stored text blocks superseded (one write each). Their seq numbers.
   */
  List<Integer> supersedeRound() {
    aggregator.closeBlock();
    List<Integer> seqs = new ArrayList<>();
    for (TurnBlock b : roundBlocks) {
      try {
        store.saveBlock(turn.id(), b.supersede());
      } catch (StoreException e) {
        log.error("could not mark block {} of turn {} superseded: {}", b.seq(), turn.id(),
            e.getMessage());
      }
      seqs.add(b.seq());
    }
    roundBlocks.clear();
    return seqs;
  }

  /**
   * Stores the open block, if it changed since it was last stored (under {@link #lock}): its
   * first write appends it, later ones save over it.
   */
  void checkpoint() {
    TurnBlock open = aggregator.openBlock().orElse(null);
    if (open == null || (open.seq() == checkpointSeq && length(open) == checkpointLength)) {
      return;
    }
    try {
      if (open.seq() == checkpointSeq) {
        store.saveBlock(turn.id(), open);
      } else {
        store.appendBlock(turn.id(), open);
      }
      checkpointSeq = open.seq();
      checkpointLength = length(open);
    } catch (StoreException e) {
      log.error("could not store the open block {} of turn {}: {}", open.seq(), turn.id(),
          e.getMessage());
    }
  }

  private static int length(TurnBlock b) {
    return b instanceof TurnBlock.Thinking t ? t.content().length()
        : b instanceof TurnBlock.Responding r ? r.content().length() : -1;
  }

  private void store(TurnBlock block) {
    if (!(block instanceof TurnBlock.Thinking || block instanceof TurnBlock.Responding)) {
      roundBlocks.clear();
    } else {
      roundBlocks.add(block);
    }
    try {
      if (block.seq() == checkpointSeq) {
        // stored open before: the finished block replaces its checkpoint, unless it is the same
        if (length(block) != checkpointLength) {
          store.saveBlock(turn.id(), block);
        }
        return;
      }
      store.appendBlock(turn.id(), block);
    } catch (StoreException e) {
      // The pages still get the stream; the block is lost from the store only.
      log.error("could not store block {} of turn {}: {}", block.seq(), turn.id(),
          e.getMessage());
    }
  }
}
