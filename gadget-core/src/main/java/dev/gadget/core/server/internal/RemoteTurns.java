package dev.gadget.core.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import dev.gadget.core.transport.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The turns other nodes run, as this node's pages see them: for every session a page of this
 * node watches, the node follows the session's feed, and for each of its turns that another
 * node runs, the turn's feed from its first event ({@link FeedRelay} numbers them). Each event
 * goes to the session's room here once, in order, under the turn's lock; a page that starts
 * watching gets, under that lock, the turn without blocks ({@code lastSeq} -1) and every event
 * relayed so far, then joins the room: nothing missed, nothing twice. A turn this node takes
 * over (its drone reconnected here) stops being relayed: it is a live turn of this node then.
 */
final class RemoteTurns {
  private static final Logger log = LoggerFactory.getLogger(RemoteTurns.class);
  /** The most events of one turn kept for pages that start watching (as the drone's outbox). */
  static final int MAX_EVENTS = 100_000;
  /** How long an ended turn's relay is kept for a page's snapshot meanwhile. */
  private static final Duration KEEP_ENDED = Duration.ofSeconds(10);

  private final Cluster cluster;
  private final WatcherRooms rooms;
  private final LiveTurns turns;
  private final ServerTimer timer;
  private final Map<String, Cluster.Subscription> sessions = new ConcurrentHashMap<>();
  private final Map<String, Remote> remote = new ConcurrentHashMap<>();

  RemoteTurns(Cluster cluster, WatcherRooms rooms, LiveTurns turns, ServerTimer timer) {
    this.cluster = cluster;
    this.rooms = rooms;
    this.turns = turns;
    this.timer = timer;
  }

  /** A turn another node runs, relayed to this node's room of its session. */
  private static final class Remote {
    final String turnId;
    final String sessionId;
    final KeptEvents seen = new KeptEvents();
    volatile Cluster.Subscription feed;
    boolean ended;
    boolean local;
    /** The room has had the events numbered up to this (the turn ran here until then). */
    long roomHad = -1;

    Remote(String turnId, String sessionId) {
      this.turnId = turnId;
      this.sessionId = sessionId;
    }
  }

  /**
   * {@code page} starts watching: the turns of {@code snapshot} that another node runs are
   * given without blocks and live from before their first event, their events so far are sent
   * to {@code page}, and it joins the room. The caller holds the session's lock.
   */
  Payloads.SessionSnapshot lay(Connection page, Payloads.SessionSnapshot snapshot) {
    String sessionId = snapshot.sessionId();
    follow(sessionId);
    List<String> local = snapshot.live().stream().map(Payloads.LiveTurn::turnId).toList();
    List<ChatTurn> laid = new ArrayList<>(snapshot.turns().size());
    List<Payloads.LiveTurn> live = new ArrayList<>(snapshot.live());
    for (ChatTurn t : snapshot.turns()) {
      if (t.status() != TurnStatus.PROCESSING || local.contains(t.id())) {
        laid.add(t);
        continue;
      }
      Remote r = ensure(t, page);
      synchronized (r) {
        if (r.local || r.ended) {
          laid.add(t);
          continue;
        }
        laid.add(TurnWrites.before(t, 0));
        live.add(new Payloads.LiveTurn(t.id(), -1, null));
        r.seen.forEach((seq, feed, event, json) -> page.emit(event, args(json)));
        rooms.join(sessionId, page); // before the next event of this turn is relayed
      }
    }
    return new Payloads.SessionSnapshot(sessionId, laid, live, snapshot.approvals());
  }

  /**
   * Follows the session's announcements (and so its turns other nodes run) while a page or a
   * seed-004 client of this node watches it.
   */
  void follow(String sessionId) {
    sessions.computeIfAbsent(sessionId, s -> cluster.follow(FeedRelay.sessionFeed(s), -1,
        e -> announced(s, e)));
  }

  private void announced(String sessionId, Cluster.FeedEvent e) {
    if (!Protocol.TURN_STARTED.equals(e.event())) {
      return;
    }
    try {
      ChatTurn turn = GadgetJson.mapper().treeToValue(
          GadgetJson.mapper().readTree(e.json()).path("turn"), ChatTurn.class);
      if (turns.get(turn.id()) == null && turn.status() == TurnStatus.PROCESSING) {
        ensure(turn, null);
      }
    } catch (JsonProcessingException | IllegalArgumentException ex) {
      log.warn("a turn announced in session {} could not be read: {}", sessionId,
          ex.getMessage());
    }
  }

  /**
   * The relay of {@code turn}, started if new: the pages in its room (but {@code knows}, whose
   * snapshot has it) are told it started, then its feed is followed from its first event.
   */
  private Remote ensure(ChatTurn turn, Connection knows) {
    return ensure(turn, knows, -1);
  }

  /**
   * A turn that ran here goes on at another node, which holds its drone now ({@link
   * TurnFence}): this node's pages get its events from the feed, after those numbered up to
   * {@code roomHad}, which they had from here. Its feed is followed from its first event all the
   * same, for pages that start watching here later.
   */
  void continueElsewhere(ChatTurn turn, long roomHad) {
    ensure(turn, null, roomHad);
  }

  private Remote ensure(ChatTurn turn, Connection knows, long roomHad) {
    Remote[] made = new Remote[1];
    Remote r = remote.computeIfAbsent(turn.id(), id -> made[0] = new Remote(id, turn.sessionId()));
    if (made[0] != null) {
      synchronized (r) {
        r.roomHad = roomHad;
        if (roomHad < 0) { // the room has not heard of it
          rooms.toRoom(turn.sessionId(), Protocol.TURN_STARTED,
              Protocol.args(new Payloads.TurnStarted(TurnWrites.before(turn, 0))), knows);
        }
      }
      // outside the turn's lock: a feed may deliver on the caller's thread, under its own lock
      try {
        r.feed = cluster.follow(turn.id(), -1, e -> relayed(r, e));
      } catch (ClusterException e) {
        log.warn("turn {} of another node is not relayed here: {}", turn.id(), e.getMessage());
      }
    }
    return r;
  }

  private void relayed(Remote r, Cluster.FeedEvent e) {
    synchronized (r) {
      if (r.local || r.ended) {
        return;
      }
      if (r.seen.size() < MAX_EVENTS) {
        r.seen.add(e.seq(), null, e.event(), e.json());
      } else if (r.seen.size() == MAX_EVENTS) {
        log.warn("turn {} has relayed more than {} events: pages that start watching it on this "
            + "node now get it from the store", r.turnId, MAX_EVENTS);
      }
      if (e.seq() > r.roomHad) {
        rooms.toRoom(r.sessionId, e.event(), args(e.json()), null);
        rooms.toObservers(r.sessionId, e.event(), e.json());
      }
      if (Protocol.WORK_ORDER_COMPLETE.equals(e.event())) {
        r.ended = true;
        r.seen.clear(); // a snapshot has an ended turn from the store
        timer.schedule(() -> forget(r), KEEP_ENDED);
      }
    }
  }

  /**
   * The event's argument as the owner wrote it to the feed, sent on as that text (not parsed
   * and written again for each event: the feed holds only what an owner node wrote).
   */
  private static List<JsonNode> args(String json) {
    return List.of(GadgetJson.raw(json));
  }

  /** This node took {@code turnId} over (its drone reconnected here): it is relayed no more. */
  void adopted(String turnId) {
    Remote r = remote.get(turnId);
    if (r != null) {
      synchronized (r) {
        r.local = true;
        r.seen.clear();
      }
      forget(r);
    }
  }

  private void forget(Remote r) {
    if (remote.remove(r.turnId, r) && r.feed != null) {
      r.feed.close();
    }
    synchronized (r) {
      r.seen.clear(); // its chunks go back to the pool
    }
  }

  /** Stops following the sessions no page of this node watches any more. */
  void sweep() {
    sessions.forEach((sessionId, sub) -> {
      if (!rooms.watched(sessionId) && sessions.remove(sessionId, sub)) {
        sub.close();
      }
    });
    remote.values().forEach(r -> {
      if (!rooms.watched(r.sessionId)) {
        forget(r);
      }
    });
  }

  /** The node is closing. */
  void close() {
    sessions.values().forEach(Cluster.Subscription::close);
    remote.values().forEach(this::forget);
  }
}
