package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.spi.ChatStore;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running turn's stream picks up where the server lost it. When a drone's link comes back,
 * the server asks it for the events after the last one it applied; a drone keeps what it sent
 * ({@code TurnOutbox}), so what was in flight when the link dropped is sent again, once.
 *
 * <p>When the server itself restarts (a deploy, a crash, {@code kill -9}), the turns the store
 * says are running are taken back instead of ended: each waits the drone grace period for its
 * drone, which sends the turn's events again from after its last stored tool call. Those events
 * rebuild the blocks from there on (the open block included, which the store had only as of its
 * last checkpoint); the pages are told ({@code turnResumed}) which blocks are rebuilt, and the
 * turn goes on. A turn's end that arrives before the events it follows waits for them, at most
 * {@link #HELD_END_WAIT}.
 */
public final class TurnResumption {
  private static final Logger log = LoggerFactory.getLogger(TurnResumption.class);

  /** How long a turn's end waits for the events before it. */
  static final Duration HELD_END_WAIT = Duration.ofSeconds(10);

  private final ServerSettings settings;
  private final LiveTurns turns;
  private final WatcherRooms rooms;
  private final ServerTimer timer;
  private final WorkOrders workOrders;

  public TurnResumption(ServerSettings settings, LiveTurns turns, WatcherRooms rooms,
      ServerTimer timer, ApprovalDesk approvals) {
    this.settings = settings;
    this.workOrders = new WorkOrders(settings.store(), new ProviderResolver(settings), approvals);
    this.turns = turns;
    this.rooms = rooms;
    this.timer = timer;
  }

  /**
   * At start: takes back every turn a previous run left running on a drone; one never sent to a
   * drone ends interrupted.
   */
  public void adoptUnfinished() {
    ChatStore store = settings.store();
    for (ChatTurn t : store.listUnfinishedTurns()) {
      if (t.droneId() == null) {
        if (store.finalizeTurn(t.id(), TurnStatus.INTERRUPTED, t.stats(),
            "the server restarted before a drone took the turn", settings.clock().instant())) {
          log.info("turn {} had no drone when the server stopped; ended as interrupted", t.id());
        }
        continue;
      }
      adopt(t, "when the server stopped");
    }
  }

  /**
   * Takes back one running turn of the store (its drone sends it again from after its last
   * stored tool call): at start, or in a cluster when its drone reconnects to this node after
   * its node died. Returns the live turn, waiting for the replay.
   */
  LiveTurn adopt(ChatTurn t, String when) {
    int fromBlock = 0;
    String afterCall = null;
    List<TurnBlock> blocks = t.blocks();
    for (TurnBlock b : blocks) {
      if (b instanceof TurnBlock.Tool tool) {
        fromBlock = b.seq() + 1;
        afterCall = tool.content().callId();
      }
    }
    LiveTurn live = turns.adopt(t, fromBlock, afterCall, order(t));
    log.info("turn {} was running on drone {} {}; waiting for the drone to send it again from "
        + "block {}", t.id(), t.droneId(), when, fromBlock);
    return live;
  }

  /**
   * The work order of a turn taken back, made again as at its start, so that a crash of its
   * drone can still be retried; null (such a crash then ends the turn) when it cannot be made.
   */
  private WorkOrder order(ChatTurn t) {
    try {
      String workspaceId = settings.store().findDrone(t.droneId())
          .map(DroneRegistration::workspaceId).orElse(null);
      return workspaceId == null ? null : workOrders.rebuild(t, workspaceId).orElse(null);
    } catch (RuntimeException e) {
      log.warn("cannot make the work order of turn {} again: {}", t.id(), e.getMessage());
      return null;
    }
  }

  /** What to ask {@code t}'s drone for when its link is back. */
  ResumePayloads.ResumeStream request(LiveTurn t) {
    synchronized (t.lock) {
      return t.awaitingReplay
          ? new ResumePayloads.ResumeStream(t.turn.id(), null, t.replayAfterCall)
          : new ResumePayloads.ResumeStream(t.turn.id(), t.lastSeq + 1, null);
    }
  }

  /** {@code droneId} sends the events of a turn again from {@code e.fromSeq()}. */
  void replayed(String droneId, ResumePayloads.StreamReplay e) {
    LiveTurn t = turns.get(e.turnId());
    if (t == null || !t.droneId.equals(droneId)) {
      return;
    }
    Runnable heldEnd;
    synchronized (t.lock) {
      if (t.ended || !t.awaitingReplay) {
        return; // a link that came back: repeats are dropped by their seq
      }
      if (e.complete()) {
        t.awaitingReplay = false;
        t.lastSeq = e.fromSeq() - 1;
        t.cancelGrace();
        t.lastEventAtMillis = settings.clock().millis();
        log.info("turn {} goes on after the server restarted: its drone sends it again from "
            + "seq {}", t.turn.id(), e.fromSeq());
        rooms.toWatchers(t.turn.sessionId(), Protocol.TURN_RESUMED,
            new ResumePayloads.TurnResumed(t.turn.id(), t.rebuiltFrom, t.lastSeq));
      }
      heldEnd = t.takeHeldEnd();
    }
    if (!e.complete()) {
      turns.end(t, TurnStatus.INTERRUPTED, null, "the server restarted while the turn was "
          + "running, and its drone no longer had all of the turn's stream to send again");
    } else if (heldEnd != null) {
      heldEnd.run();
    }
  }

  /**
   * Holds the end of {@code t} (its seq {@code seq}) when events before it have not arrived
   * (a replay is coming): {@code end} runs once they have, or after {@link #HELD_END_WAIT}.
   *
   * @return false when the end may run now
   */
  boolean hold(LiveTurn t, long seq, Runnable end) {
    synchronized (t.lock) {
      if (t.ended || (!t.awaitingReplay && t.lastSeq >= seq - 1)) {
        return false;
      }
      if (t.heldEndTimer != null) {
        t.heldEndTimer.cancel(false); // the drone sent its end again: the newest waits
      }
      t.heldEnd = end;
      t.heldEndSeq = seq;
      t.heldEndTimer = timer.schedule(() -> {
        Runnable late;
        synchronized (t.lock) {
          late = t.heldEnd;
          t.heldEnd = null;
          t.heldEndTimer = null;
        }
        if (late != null) {
          log.warn("the end of turn {} waited {} s for the events before it; ending it with "
              + "what arrived", t.turn.id(), HELD_END_WAIT.toSeconds());
          late.run();
        }
      }, HELD_END_WAIT);
      return true;
    }
  }
}
