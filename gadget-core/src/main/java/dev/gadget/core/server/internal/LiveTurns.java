package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.stream.StreamChunk;
import dev.gadget.core.transport.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The turns running now and how their streams are relayed: each event is applied once in
 * sequence order, aggregated into blocks that are stored as they finish (by the writer threads,
 * {@link TurnWrites}, so the relay never waits for the store), and forwarded to the session's
 * watchers; a turn ends once, with its blocks and end stored, then announced. One lock per chat
 * session orders all of it against a page's snapshot.
 */
public final class LiveTurns {
  private static final Logger log = LoggerFactory.getLogger(LiveTurns.class);

  /** How often the open blocks are stored while they stream. */
  public static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);
  /**
   * How many threads write the live turns' blocks. Each turn's writes are made in order, by one
   * of them at a time (a queue waits for each turn, never one for all).
   */
  static final int WRITERS = 4;
  /** Reads of the store outside the session's lock a snapshot makes before one under it. */
  static final int SNAPSHOT_READS = 3;

  private final ServerSettings settings;
  private final ChatStore store;
  private final ServerTimer timer;
  private final WatcherRooms rooms;
  private final DroneRouter router;
  private final Map<String, LiveTurn> live = new ConcurrentHashMap<>();
  /** How many turns of each session are live (sessions with none are absent). */
  private final Map<String, Integer> liveInSession = new ConcurrentHashMap<>();
  /** Sessions whose next turn is being stored ({@link #reserve}): as good as running. */
  private final Set<String> starting = ConcurrentHashMap.newKeySet();
  /** One monitor per chat session: guards its live turn, its room and the snapshot. */
  private final Map<String, SessionLock> sessionLocks = new ConcurrentHashMap<>();
  /** In a cluster: the turns of other nodes and this node's presence; else null. */
  private volatile RemoteTurns remote;
  private volatile ClusterNode node;
  /** Whether this node may still act on a turn (in a cluster; else always). */
  volatile TurnFence fence;
  /**
   * The threads that write the live turns' blocks, so that the relay never waits for a disk.
   * Its queue holds at most one task per live turn ({@link TurnWrites} schedules one at a time).
   */
  private final ExecutorService writers = new ThreadPoolExecutor(WRITERS, WRITERS, 30,
      TimeUnit.SECONDS, new LinkedBlockingQueue<>(), TurnWrites::writerThread);

  public LiveTurns(ServerSettings settings, ServerTimer timer, WatcherRooms rooms,
      DroneRouter router) {
    this.settings = settings;
    this.store = settings.store();
    this.timer = timer;
    this.rooms = rooms;
    this.router = router;
    this.fence = new TurnFence(null, this, timer, store);
  }

  /** This server is a node of a cluster. */
  void cluster(RemoteTurns remoteTurns, ClusterNode clusterNode) {
    this.remote = remoteTurns;
    this.node = clusterNode;
    this.fence = new TurnFence(clusterNode, this, timer, store);
  }

  /** The running turns ({@link TurnSweeps}); a live view. */
  java.util.Collection<LiveTurn> all() {
    return live.values();
  }

  /** The running turn with this id, or null. */
  LiveTurn get(String turnId) {
    return turnId == null ? null : live.get(turnId);
  }

  /**
   * The running turn with this id, when {@code drone} streams to it: the one it streamed to
   * last when that is it (a turn id names one live turn ever, so this finds what {@link #get}
   * would, or an ended turn that takes no event), else looked up and remembered.
   */
  private LiveTurn streamedBy(ConnectedDrone drone, String turnId) {
    LiveTurn last = drone.streaming;
    if (last != null && last.turn.id().equals(turnId)) {
      return last;
    }
    LiveTurn t = get(turnId);
    drone.streaming = t == null || t.ended ? null : t; // a hint: an ended turn is not kept
    return t;
  }

  /** Whether a turn runs in {@code sessionId} now, or is being started there. */
  boolean runningIn(String sessionId) {
    return starting.contains(sessionId) || liveInSession.containsKey(sessionId);
  }

  /**
   * Holds {@code sessionId} for a turn about to start (its turn is being stored): it counts as
   * running until {@link #start} or {@link #unreserve}. Call under the routing lock.
   */
  void reserve(String sessionId) {
    starting.add(sessionId);
  }

  /** The turn reserved for {@code sessionId} will not start. */
  void unreserve(String sessionId) {
    starting.remove(sessionId);
  }

  /**
   * How many times a turn of {@code sessionId} started, ended or was undone: what was read of
   * its turns is current while this stays the same.
   */
  long changes(String sessionId) {
    SessionLock lock = sessionLock(sessionId);
    synchronized (lock) {
      return lock.turnsChanged;
    }
  }

  /**
   * Follows a new turn on {@code droneId} (its session's reservation, if any, passes to it) and
   * tells the session's watchers it started.
   */
  LiveTurn start(ChatTurn turn, WorkOrder order, String droneId) {
    LiveTurn t = new LiveTurn(turn, order, droneId, sessionLock(turn.sessionId()),
        new TurnWrites(turn.id(), store, writers), settings.clock());
    t.writes.fencedBy(fence.writes(t));
    synchronized (t.lock) {
      live.put(turn.id(), t);
      liveInSession.merge(turn.sessionId(), 1, Integer::sum);
      starting.remove(turn.sessionId());
      turnsChanged(turn.sessionId());
      settings.listener().onTurnStarted(turn);
      rooms.toWatchers(turn.sessionId(), Protocol.TURN_STARTED, new Payloads.TurnStarted(turn));
    }
    return t;
  }

  /**
   * Follows again a turn that a previous run of the server left running on its drone: it waits
   * the grace period for the drone to come back and send its stream again from after the call
   * {@code afterCall} (rebuilding the blocks from {@code rebuiltFrom} on, {@link TurnResumption}),
   * and else ends interrupted.
   */
  LiveTurn adopt(ChatTurn turn, int rebuiltFrom, String afterCall, WorkOrder order) {
    LiveTurn t = new LiveTurn(turn, order, turn.droneId(), sessionLock(turn.sessionId()),
        new TurnWrites(turn.id(), store, writers), settings.clock(), rebuiltFrom);
    t.writes.fencedBy(fence.writes(t));
    synchronized (t.lock) {
      t.awaitingReplay = true;
      t.replayAfterCall = afterCall;
      t.lastSeq = 0; // for a snapshot meanwhile: the stored blocks stand until turnResumed
      live.put(turn.id(), t);
      liveInSession.merge(turn.sessionId(), 1, Integer::sum);
      turnsChanged(turn.sessionId());
    }
    awaitReturn(t, "the server restarted");
    return t;
  }

  /**
   * The session as it stands (stored turns, each live turn's open block and last sequence
   * number) with {@code page} joining its room at that same point of the stream.
   *
   * <p>The store is read outside the session's lock: stream events take that lock on the thread
   * that read them, so a slow read would hold up the session's stream and every connection of
   * that thread. Under the lock, each live turn's blocks (every one asked for, written or not)
   * are laid over what was read, the open block taken and the room joined at one point of the
   * stream, so the page sees every later event exactly once. A turn that started, ended or was
   * undone meanwhile changed what the read should have seen: then it is read again, and after
   * {@link #SNAPSHOT_READS} such reads, under the lock.
   */
  public Payloads.SessionSnapshot snapshot(Connection page, ChatSession session) {
    SessionLock lock = sessionLock(session.id());
    for (int attempt = 0; attempt < SNAPSHOT_READS; attempt++) {
      long changes;
      synchronized (lock) {
        changes = lock.turnsChanged;
      }
      List<ChatTurn> stored = store.listTurns(session.id());
      synchronized (lock) {
        if (lock.turnsChanged == changes) {
          return snapshotAt(page, session, stored);
        }
      }
    }
    synchronized (lock) {
      return snapshotAt(page, session, store.listTurns(session.id()));
    }
  }

  /** {@link #snapshot}'s answer from {@code stored}; the caller holds the session's lock. */
  private Payloads.SessionSnapshot snapshotAt(Connection page, ChatSession session,
      List<ChatTurn> stored) {
    return LiveSnapshot.at(page, session.id(), stored, live.values(), remote, rooms);
  }

  /**
   * A turn of {@code sessionId} started, ended or had a block added after its end: a snapshot
   * reading the store meanwhile reads again. The caller holds the session's lock.
   */
  void turnsChanged(String sessionId) {
    sessionLock(sessionId).turnsChanged++;
  }

  /**
   * Applies one stream event from {@code droneId}: once, in order, then forwards it. A
   * {@code null} chunk is not aggregated: {@code toolStarted} checkpoints the open block,
   * {@code toolOutput} is only forwarded.
   */
  void stream(String droneId, String turnId, long seq, StreamChunk chunk, String event,
      Object payload) {
    stream(get(turnId), droneId, turnId, seq, chunk, event, payload, null);
  }

  /**
   * As above, for a token of {@code drone}'s stream; {@code received}, when not null, is what
   * the pages get (the payload as it came).
   */
  void stream(ConnectedDrone drone, String turnId, long seq, StreamChunk chunk, String event,
      Object payload, List<JsonNode> received) {
    stream(streamedBy(drone, turnId), drone.id, turnId, seq, chunk, event, payload, received);
  }

  private void stream(LiveTurn t, String droneId, String turnId, long seq, StreamChunk chunk,
      String event, Object payload, List<JsonNode> received) {
    if (t == null || !t.droneId.equals(droneId)) {
      log.debug("ignoring '{}' for turn {} that drone {} does not run", event, turnId, droneId);
      return;
    }
    Runnable heldEnd;
    synchronized (t.lock) {
      if (t.ended || t.awaitingReplay || seq <= t.lastSeq) {
        return; // a repeat, or sent before a replay that will send it again
      }
      t.lastSeq = seq;
      t.lastEventAtMillis = settings.clock().millis();
      if (chunk != null) {
        t.aggregator.accept(chunk);
      } else if (Protocol.TOOL_STARTED.equals(event)) {
        t.checkpoint();
      }
      if (chunk instanceof StreamChunk.ToolCallChunk) {
        // A tool call finishes the block before it: the pages learn that once it is stored, so
        // a server killed right after leaves no finished block unstored. Its handler may wait
        // (a token's may not: a new mode's first token goes on while the block before it is
        // written, see TurnWrites).
        t.writes.flush();
      }
      t.followTool(payload);
      // Forwarded under the turn's lock, so a page joining now gets either the snapshot with
      // this event or the event itself, never both and never neither.
      rooms.toWatchers(t.turn.sessionId(), event, payload, received);
      heldEnd = t.takeHeldEnd();
    }
    if (heldEnd != null) {
      timer.schedule(heldEnd, Duration.ZERO);
    }
  }

  /** The drone is alive: a turn it runs is not silent. */
  void heard(String droneId, String turnId) {
    LiveTurn t = get(turnId);
    if (t != null && t.droneId.equals(droneId)) {
      synchronized (t.lock) {
        t.lastEventAtMillis = settings.clock().millis();
      }
    }
  }

  /**
   * Ends a live turn once: flushes its blocks, stores the end, frees the drone, tells the pages.
   * All under the session's lock, so a page that starts watching meanwhile either sees the turn
   * ended in the store or is in the room when the end is announced.
   */
  void end(LiveTurn t, TurnStatus status, TurnStats stats, String error) {
    end(t, status, stats, error, null);
  }

  /** As {@link #end(LiveTurn, TurnStatus, TurnStats, String)}, with the model's last reply. */
  void end(LiveTurn t, TurnStatus status, TurnStats stats, String error, String text) {
    if (fence.lost(t)) {
      return; // the node that holds the drone now ends it
    }
    TurnStats finalStats = stats == null ? TurnStats.EMPTY : stats;
    long seq;
    synchronized (t.lock) {
      if (t.ended) {
        seq = -1;
      } else {
        if (t.crashRetries > 0) {
          finalStats = finalStats.withCrashRetries(t.crashRetries);
        }
        t.ended = true;
        seq = t.lastSeq + 1;
        t.aggregator.complete();
        t.stopTimers();
      }
    }
    if (seq < 0) {
      // Ended by another caller (a drone repeating its end): answer once that end is stored.
      t.awaitEndStored(TurnWrites.WAIT);
      return;
    }
    // The blocks first, outside the session's lock: a page's snapshot meanwhile still gets
    // the blocks that wait. The end is stored after them, so what the drone's acknowledgement
    // of the end promises is in the store when it is sent.
    t.writes.flush();
    synchronized (t.lock) {
      boolean stored = fence.storeEnd(t, status, finalStats, error, settings.clock().instant());
      t.endStored.complete(null);
      router.release(t.droneId, t.turn.id());
      dropLive(t);
      if (!stored) { // another node took the turn over and ends it: the pages follow it there
        t.letGo = true;
        fence.handOver(t);
        return;
      }
      ClusterNode n = node;
      if (n != null) { // its chat is free on every node before any page hears of the end
        n.releaseChat(t.turn);
      }
      log.info("turn {} ended: {}{}", t.turn.id(), status.name().toLowerCase(),
          error == null ? "" : " (" + error + ")");
      settings.listener().onTurnEnded(t.turn, status, finalStats,
          Duration.between(t.turn.createdAt(), settings.clock().instant()));
      rooms.toWatchers(t.turn.sessionId(), Protocol.WORK_ORDER_COMPLETE,
          new Payloads.WorkOrderComplete(t.turn.id(), seq, status, finalStats, error, text));
    }
  }

  /** The user cancelled: the turn ends as cancelled if the drone does not confirm in time. */
  void awaitCancel(LiveTurn t) {
    synchronized (t.lock) {
      if (t.cancelTimer == null && !t.ended) {
        t.cancelTimer = timer.schedule(() -> end(t, TurnStatus.CANCELLED, null,
            "cancelled by the user; the drone did not confirm"), settings.cancelTimeout());
      }
    }
  }

  /**
   * The turn's drone is gone: the turn ends as interrupted unless it comes back in time. The
   * transport's {@code reason} goes to the log only; pages read a sentence for people.
   */
  void awaitReturn(LiveTurn t, String reason) {
    Duration grace = settings.droneGracePeriod();
    synchronized (t.lock) {
      if (!t.ended && t.graceTimer == null) {
        log.info("turn {} waits {} s for its drone to come back ({})", t.turn.id(),
            grace.toSeconds(), reason);
        t.graceTimer = timer.schedule(() -> graceOver(t, grace), grace);
      }
    }
  }

  /** The drone is not back: the turn ends, unless another node runs it now ({@link #end}). */
  private void graceOver(LiveTurn t, Duration grace) {
    end(t, TurnStatus.INTERRUPTED, null, "the drone disconnected while running this turn and "
        + "did not come back within " + grace.toSeconds() + " s");
  }

  /**
   * Another node runs the turn now ({@link TurnFence}): it ends here with nothing stored,
   * relayed or told. False when it had ended already.
   */
  boolean letGo(LiveTurn t) {
    synchronized (t.lock) {
      if (t.ended) {
        return false;
      }
      t.ended = true;
      t.letGo = true;
      t.stopTimers();
      dropLive(t);
      t.endStored.complete(null); // nothing more is stored here: a caller waiting goes on
    }
    router.release(t.droneId, t.turn.id());
    log.info("turn {} goes on at another node, which holds its drone now", t.turn.id());
    return true;
  }

  /** The turn is no longer live here (under its lock). */
  private void dropLive(LiveTurn t) {
    if (live.remove(t.turn.id(), t)) {
      liveInSession.computeIfPresent(t.turn.sessionId(), (k, c) -> c == 1 ? null : c - 1);
    }
    turnsChanged(t.turn.sessionId());
  }

  /**
   * A deleted session (no turn runs in it: the caller checked, under the router's lock) needs its
   * lock no more.
   */
  void forget(String sessionId) {
    sessionLocks.remove(sessionId);
  }

  /** A session's lock, and how many times its turns changed (guarded by itself). */
  static final class SessionLock {
    long turnsChanged;
  }

  /** The server is closing: the block writes asked for so far are made, at most 30 s. */
  public void close() {
    writers.shutdown();
    try {
      if (!writers.awaitTermination(TurnWrites.WAIT.toSeconds(), TimeUnit.SECONDS)) {
        log.error("the store did not take the last block writes within {} s",
            TurnWrites.WAIT.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The session's lock: a write that a snapshot must see whole is made under it. */
  SessionLock sessionLock(String sessionId) {
    return sessionLocks.computeIfAbsent(sessionId, k -> new SessionLock());
  }
}
