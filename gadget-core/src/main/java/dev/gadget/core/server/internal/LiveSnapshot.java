package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.protocol.ApprovalPayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.transport.Connection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A session's snapshot: its stored turns with each live turn's blocks laid over them (every
 * block asked for, written or not), and each live turn's open block, last seq, running tool and
 * waiting approvals. The open block is in {@code live} only: its checkpoint is left out of
 * {@code turns}; a turn taken back after a restart leaves out its stored blocks that its replay
 * rebuilds.
 */
final class LiveSnapshot {
  private LiveSnapshot() {}

  /**
   * The snapshot of {@code sessionId} from {@code stored} and this node's live turns, with the
   * turns other nodes run laid over it ({@code remote}, in a cluster, else null), and
   * {@code page} joined to its room at that point of the stream; under the session's lock.
   */
  static Payloads.SessionSnapshot at(Connection page, String sessionId, List<ChatTurn> stored,
      Collection<LiveTurn> live, RemoteTurns remote, WatcherRooms rooms) {
    List<LiveTurn> running = new ArrayList<>();
    for (LiveTurn t : live) {
      if (t.turn.sessionId().equals(sessionId)) {
        running.add(t);
      }
    }
    Payloads.SessionSnapshot snapshot = of(sessionId, stored, running);
    if (remote != null) {
      snapshot = remote.lay(page, snapshot);
    }
    rooms.join(sessionId, page);
    return snapshot;
  }

  /** The snapshot of {@code sessionId}; the caller holds the session's lock. */
  static Payloads.SessionSnapshot of(String sessionId, List<ChatTurn> stored,
      List<LiveTurn> running) {
    Map<String, LiveTurn> byId = new HashMap<>();
    Map<String, TurnBlock> open = new HashMap<>();
    for (LiveTurn t : running) {
      byId.put(t.turn.id(), t);
      t.aggregator.openBlock().ifPresent(b -> open.put(t.turn.id(), b));
    }
    List<ChatTurn> turns = new ArrayList<>(stored.size());
    for (ChatTurn turn : stored) {
      LiveTurn t = byId.get(turn.id());
      ChatTurn laid = t == null ? turn : TurnWrites.withBlocks(
          TurnWrites.before(turn, t.awaitingReplay ? -1 : t.rebuiltFrom), t.writes.blocks());
      turns.add(TurnWrites.without(laid, open.get(turn.id())));
    }
    List<Payloads.LiveTurn> liveTurns = new ArrayList<>();
    List<ApprovalPayloads.ApprovalPending> pending = new ArrayList<>();
    for (LiveTurn t : running) {
      liveTurns.add(new Payloads.LiveTurn(t.turn.id(), t.lastSeq,
          open.get(t.turn.id()), t.runningTool,
          t.runningTool == null ? null : t.toolOutput.toString(), t.liveStats));
      t.pendingApprovals.values().forEach(p -> pending.add(p.event()));
    }
    return new Payloads.SessionSnapshot(sessionId, turns, liveTurns,
        new ApprovalPayloads.ApprovalPolicyReply(sessionId, null, pending, null));
  }
}
