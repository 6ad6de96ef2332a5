package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.ApprovalPayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.stream.BlockAggregator;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A turn running on a drone: its work order, the last sequence number applied, the block
 * aggregation that stores each finished block, and its timers. Every mutable field is guarded by
 * {@link #lock}, the chat session's lock.
 */
final class LiveTurn {
  final ChatTurn turn;
  final WorkOrder workOrder;
  final String droneId;
  /** The session's lock: guards every mutable field. */
  final Object lock;
  final BlockAggregator aggregator;
  /** The turn's block writes, made off the relay's path. */
  final TurnWrites writes;
  /** The text blocks stored since the last tool block: the current model round's. */
  private final List<TurnBlock> roundBlocks = new ArrayList<>();
  /** The seq and length of the open block as last checkpointed; -1: none. */
  private int checkpointSeq = -1;
  private long checkpointLength = -1;
  /** The most of a running tool's output kept for a page's snapshot (its tail). */
  static final int MAX_TOOL_OUTPUT = 64_000;

  /** The tool running now, for a page's snapshot; null: none. */
  Payloads.ToolStarted runningTool;
  /** What it printed so far (its tail, at most {@link #MAX_TOOL_OUTPUT}). */
  final StringBuilder toolOutput = new StringBuilder();
  long lastSeq = -1;
  /** When the drone last said something of this turn, in the clock's epoch milliseconds. */
  long lastEventAtMillis;
  /** Volatile: the store writers read it without the lock ({@link LiveTurns}). */
  volatile boolean ended;
  /** Ended here because another node holds the drone now ({@link TurnFence}). */
  volatile boolean letGo;
  /**
   * The fence this node's writes of the turn last carried ({@link TurnFence#fenceOf}): kept
   * once the drone's lease is given up (its link dropped), so the writes stay fenced; -1: none.
   */
  volatile long fence = -1;
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

  /**
   * Taken back after a server restart: the first block the drone's replay rebuilds (the stored
   * ones from there on are stale until rewritten); -1: a turn this run started.
   */
  final int rebuiltFrom;
  /** Taken back after a restart, and the drone's replay has not begun: its events wait. */
  boolean awaitingReplay;
  /** The call whose {@code toolCall} the replay follows (null: the turn's first event). */
  String replayAfterCall;
  /** The turn's end the drone sent before the events it follows arrived; null: none. */
  Runnable heldEnd;
  /** The seq of that end. */
  long heldEndSeq;
  /** Runs the held end anyway when the events before it do not come. */
  ScheduledFuture<?> heldEndTimer;

  LiveTurn(ChatTurn turn, WorkOrder workOrder, String droneId, Object lock, TurnWrites writes,
      Clock clock) {
    this(turn, workOrder, droneId, lock, writes, clock, -1);
  }

  /** A turn whose blocks from {@code rebuiltFrom} on are rebuilt (when not -1). */
  LiveTurn(ChatTurn turn, WorkOrder workOrder, String droneId, Object lock, TurnWrites writes,
      Clock clock, int rebuiltFrom) {
    this.rebuiltFrom = rebuiltFrom;
    this.lock = lock;
    this.turn = turn;
    this.workOrder = workOrder;
    this.droneId = droneId;
    this.writes = writes;
    this.aggregator = new BlockAggregator(this::store, clock, Math.max(0, rebuiltFrom));
    this.lastEventAtMillis = clock.millis();
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

  /** Completed once the turn's end is stored (or storing it failed). */
  final CompletableFuture<Void> endStored = new CompletableFuture<>();

  /** The turn ended: its timers and the calls still waiting for approval stop (under lock). */
  void stopTimers() {
    if (graceTimer != null) {
      graceTimer.cancel(false);
    }
    if (cancelTimer != null) {
      cancelTimer.cancel(false);
    }
    // Calls still waiting for approval end with the turn (pages drop them on its end).
    pendingApprovals.values().forEach(p -> {
      if (p.expiry() != null) {
        p.expiry().cancel(false);
      }
    });
    pendingApprovals.clear();
  }

  /** Waits (not under {@link #lock}) until the turn's end is stored, at most {@code wait}. */
  void awaitEndStored(Duration wait) {
    try {
      endStored.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // the first caller logs what the store said
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The end held for the events before it runs, now that they are here (under {@link #lock});
   * null when there is none or it still waits.
   */
  Runnable takeHeldEnd() {
    if (heldEnd == null || awaitingReplay || lastSeq < heldEndSeq - 1) {
      return null;
    }
    Runnable end = heldEnd;
    heldEnd = null;
    if (heldEndTimer != null) {
      heldEndTimer.cancel(false);
      heldEndTimer = null;
    }
    return end;
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
      writes.save(b.supersede());
      seqs.add(b.seq());
    }
    roundBlocks.clear();
    return seqs;
  }

  /**
   * Stores the open block, if it changed since it was last stored (under {@link #lock}): its
   * first write appends it, later ones save over it. Like every block write of the turn it is
   * made by {@link #writes}, off the relay's path.
   */
  void checkpoint() {
    TurnBlock open = aggregator.openBlock().orElse(null);
    if (open == null || (open.seq() == checkpointSeq && length(open) == checkpointLength)) {
      return;
    }
    if (open.seq() == checkpointSeq || rebuilt(open)) {
      writes.save(open);
    } else {
      writes.append(open);
    }
    checkpointSeq = open.seq();
    checkpointLength = length(open);
  }

  /**
   * Whether {@code b} is rebuilt by a replay after a restart: saved over the checkpoint the store
   * may have of it (an append would be ignored, the stale text kept).
   */
  private boolean rebuilt(TurnBlock b) {
    return rebuiltFrom >= 0 && b.seq() >= rebuiltFrom;
  }

  /** How much a text block holds: its text's length, and above it its signed reasoning's count. */
  private static long length(TurnBlock b) {
    return b instanceof TurnBlock.Thinking t
        ? t.content().length() + ((long) t.reasoning().size() << 32)
        : b instanceof TurnBlock.Responding r ? r.content().length() : -1;
  }

  private void store(TurnBlock block) {
    boolean text = block instanceof TurnBlock.Thinking || block instanceof TurnBlock.Responding;
    if (!text) {
      roundBlocks.clear();
    } else {
      roundBlocks.add(block);
    }
    if (block.seq() == checkpointSeq) {
      // stored open before: the finished block replaces its checkpoint, unless it is the same
      if (length(block) != checkpointLength) {
        writes.save(block);
      }
      return;
    }
    if (text && rebuilt(block)) {
      writes.save(block);
      return;
    }
    writes.append(block);
  }
}
