package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner's side of the cluster's feeds: every event this node sends to a session's watchers
 * goes to the cluster too, for the pages of other nodes ({@link RemoteTurns}). A turn's
 * {@code turnStarted} goes to its session's feed ({@code session:{id}}, numbered by the turn's
 * place in the session); every other event of a turn to the turn's feed, numbered from the
 * drone's {@code seq}: {@code (seq + 2) * 8} for an event that has one, and the next of the 7
 * numbers after it for each event without one (stats, approvals, a superseded round). So the
 * events a drone sends again after its node died (to another node, which relays them too) have
 * the numbers they had and are dropped by the feed: other nodes' pages get each event once.
 * Called under the turn's lock, so a turn's events are numbered in the order pages get them;
 * the appends themselves are made in that order by one thread of their own, what waits in
 * batches of at most {@link #BATCH} (one Redis round trip each). What waits is bounded: at most
 * {@link #MAX_WAITING_UNITS} units, an event counting one plus one per
 * {@link #UNIT_CHARS} characters of its payload (so at most 131,072 events and about 32 MiB).
 * When the cluster is slower than this node's drones (or away) and the bound is reached, the
 * caller waits for room (back-pressure: the drone's connection handles nothing more meanwhile,
 * the drone keeps what it sent in its outbox, and past the transport's bound of waiting
 * requests its link drops and it sends again from where this node is), at most
 * {@link #MAX_BLOCK}; only then is an event dropped, logged. Once the cluster is back, what
 * waits goes in order, after every event of the live turns appended before (it may have lost
 * them: a restart without its data), which the feeds drop where they still have them.
 */
final class FeedRelay implements WatcherRooms.Relay, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FeedRelay.class);
  /** How long a turn's feed is kept after its end, for pages that reconnect meanwhile. */
  static final Duration KEEP_AFTER_END = Duration.ofSeconds(60);
  /** Events without a seq that one seq's slot holds; more are not relayed. */
  private static final int SLOTS = 7;

  /** How long the relay waits before it tries an append again, the cluster being away. */
  private static final Duration RETRY = Duration.ofMillis(200);
  /** The most units of appends that wait for the cluster (an event: 1 + chars / UNIT_CHARS). */
  static final int MAX_WAITING_UNITS = 1 << 17;
  /** The characters of payload that count one unit more. */
  static final int UNIT_CHARS = 256;
  /** The longest a caller waits for room before its event is dropped. */
  static final Duration MAX_BLOCK = Duration.ofSeconds(60);
  /** The most appends sent to the cluster in one call ({@link Cluster#appendAll}). */
  static final int BATCH = 512;

  /**
   * Events are handed to {@link Cluster#publishing} (pushed between nodes) only while fewer
   * than this wait for the feed: a relay further behind is a node at full load, where a push
   * gains the other nodes nothing and costs this one a write per event.
   */
  static final int PUBLISH_BELOW = 256;

  private final Cluster cluster;
  private final BlockingQueue<Append> waiting = new LinkedBlockingQueue<>();
  /** Room for what waits, in units; taken by {@link #later}, given back once sent. */
  private final Semaphore room;
  private final int maxUnits;
  private final Duration maxBlock;
  /** When the relay last said at WARN that it is full (System.nanoTime), or 0. */
  private volatile long lastWarned;
  /** The most events of live turns kept to relay again after an outage. */
  static final int MAX_KEPT = 100_000;
  /** Each live turn's appends so far; the appending thread's own. */
  private final Map<String, KeptEvents> history = new LinkedHashMap<>();
  private int kept;
  private boolean warnedKept;
  private final Thread appender;
  private volatile boolean closed;
  /**
   * Per live turn: the last seq relayed, how many events without one followed it, and the
   * number of the last event published ({@link Cluster#publishing}: -1 before the first of a
   * turn started here, {@link Long#MIN_VALUE} unknown).
   */
  private final Map<String, long[]> numbering = new ConcurrentHashMap<>();

  FeedRelay(Cluster cluster) {
    this(cluster, MAX_WAITING_UNITS, MAX_BLOCK);
  }

  /** A relay with other bounds (tests). */
  FeedRelay(Cluster cluster, int maxUnits, Duration maxBlock) {
    this.cluster = cluster;
    this.maxUnits = maxUnits;
    this.maxBlock = maxBlock;
    this.room = new Semaphore(maxUnits, true);
    this.appender = new Thread(this::appendAll, "gadget-cluster-relay");
    appender.setDaemon(true);
    appender.start();
  }

  /** One append to a feed ({@code end}: the turn's feed is ended instead). */
  private record Append(String key, String feed, long number, String event, String json,
      boolean end, int units) {
    Cluster.FeedAppend entry() {
      return new Cluster.FeedAppend(feed, number, event, json);
    }
  }

  /**
   * The appending thread: takes what waits (at most {@link #BATCH} at once) and sends it in
   * order, each run of appends in one call; a run that fails for the cluster being away is
   * sent again whole once it is back (the feeds drop the repeats).
   */
  private void appendAll() {
    boolean away = false;
    List<Append> batch = new ArrayList<>(BATCH);
    while (!closed) {
      try {
        Append first = waiting.poll(RETRY.toMillis(), TimeUnit.MILLISECONDS);
        if (first != null) {
          batch.add(first);
          waiting.drainTo(batch, BATCH - 1);
        }
      } catch (InterruptedException e) {
        return;
      }
      away |= !cluster.reachable();
      while (!closed) {
        try {
          if (away && cluster.reachable()) {
            relayAgain();
            away = false;
          }
          send(batch);
          break;
        } catch (ClusterException e) {
          // the cluster is away (said once by the cluster): this and what waits go when it is
          // back, in order, after what it may have lost
          away = true;
          LockSupport.parkNanos(RETRY.toNanos());
        } catch (RuntimeException e) {
          if (batch.isEmpty()) {
            log.warn("events were not relayed again to other nodes: {}", e.toString());
            break;
          }
          List<Append> failed = headRun(batch);
          log.warn("{} events were not relayed to other nodes: {}", failed.size(), e.toString());
          failed.forEach(a -> room.release(a.units()));
          failed.clear();
        }
      }
      batch.clear();
    }
  }

  /**
   * Sends {@code batch} in order: each run of appends in one call, each end on its own; what
   * went is remembered and taken out of the batch, so a failure leaves what is still to send.
   */
  private void send(List<Append> batch) {
    while (!batch.isEmpty()) {
      List<Append> run = headRun(batch);
      if (run.get(0).end()) {
        cluster.endFeed(run.get(0).feed(), KEEP_AFTER_END);
      } else {
        cluster.appendAll(run.stream().map(Append::entry).toList());
      }
      run.forEach(this::remember);
      run.clear();
    }
  }

  /** The batch's first end, or its appends up to the first end (a view of the batch). */
  private static List<Append> headRun(List<Append> batch) {
    if (batch.get(0).end()) {
      return batch.subList(0, 1);
    }
    int n = 1;
    while (n < batch.size() && !batch.get(n).end()) {
      n++;
    }
    return batch.subList(0, n);
  }

  /** Keeps what was appended of each live turn, to append again after an outage. */
  private void remember(Append a) {
    room.release(a.units());
    if (a.end()) {
      KeptEvents turn = history.remove(a.key());
      if (turn != null) {
        kept -= turn.size();
        turn.clear(); // its chunks go back to the pool
      }
      return;
    }
    if (kept >= MAX_KEPT) {
      if (!warnedKept) {
        warnedKept = true;
        log.warn("{} events of live turns are kept to relay again after a Redis outage: later "
            + "ones are not", MAX_KEPT);
      }
      return;
    }
    // the feed is kept only when it is not the turn's own (a turn's announcement)
    history.computeIfAbsent(a.key(), k -> new KeptEvents()).add(a.number(),
        a.feed().equals(a.key()) ? null : a.feed(), a.event(), a.json());
    kept++;
  }

  /**
   * The cluster was away: it may have lost what it had (Redis restarted without its data), so
   * every kept event of the live turns is appended again, in order; those it still has are
   * dropped as repeats, and the followers of other nodes get the ones it lost.
   */
  private void relayAgain() {
    int[] n = {0};
    List<Cluster.FeedAppend> chunk = new ArrayList<>(BATCH);
    for (Map.Entry<String, KeptEvents> turn : history.entrySet()) {
      turn.getValue().forEach((number, feed, event, json) -> {
        chunk.add(new Cluster.FeedAppend(feed == null ? turn.getKey() : feed, number, event,
            json));
        if (chunk.size() == BATCH) {
          n[0] += appended(cluster.appendAll(chunk));
          chunk.clear();
        }
      });
    }
    if (!chunk.isEmpty()) {
      n[0] += appended(cluster.appendAll(chunk));
    }
    if (n[0] > 0) {
      log.info("relayed {} events of live turns again: the cluster had lost them", n[0]);
    }
  }

  private static int appended(boolean[] answers) {
    int n = 0;
    for (boolean a : answers) {
      n += a ? 1 : 0;
    }
    return n;
  }

  /**
   * Queues one append once there is room for it: while the cluster takes less than this node's
   * drones give, the caller waits (at most {@link #maxBlock}, then the event is dropped, logged).
   */
  private void later(Append append) {
    if (closed) {
      return;
    }
    if (!room.tryAcquire(append.units())) {
      boolean warn = warnNow();
      String full = "the relay to other nodes is full ({} units of events wait for the "
          + "cluster): this node's drones wait for room";
      if (warn) {
        log.warn(full, maxUnits);
      } else {
        log.debug(full, maxUnits);
      }
      try {
        if (!room.tryAcquire(append.units(), maxBlock.toNanos(), TimeUnit.NANOSECONDS)) {
          log.warn("an event of turn {} waited {} s for room in the relay to other nodes: it is "
              + "not relayed", append.key(), maxBlock.toSeconds());
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (closed) {
        return;
      }
      log.debug("the relay to other nodes had room again");
    }
    waiting.add(append);
  }

  /** Whether to say at WARN that the relay is full: at most once a minute, else DEBUG. */
  private boolean warnNow() {
    long now = System.nanoTime();
    long last = lastWarned;
    if (last != 0 && now - last < TimeUnit.MINUTES.toNanos(1)) {
      return false;
    }
    lastWarned = now;
    return true;
  }

  /** The units an append of {@code json} takes of the relay's room. */
  private int units(String json) {
    return (int) Math.min(maxUnits, 1 + json.length() / UNIT_CHARS);
  }

  /** How many units of room are taken now (tests). */
  int taken() {
    return maxUnits - room.availablePermits();
  }

  @Override
  public void close() {
    closed = true;
    appender.interrupt();
    room.release(maxUnits); // the callers that wait for room go
  }

  /** The feed of a session's turn announcements. */
  static String sessionFeed(String sessionId) {
    return "session:" + sessionId;
  }

  @Override
  public void published(String sessionId, String event, List<JsonNode> args) {
    if (args.size() != 1) {
      return;
    }
    JsonNode payload = args.get(0);
    String json = payload.toString();
    if (json.length() > Cluster.MAX_MESSAGE_CHARS) {
      log.warn("event '{}' of session {} is not relayed to other nodes: {} characters, over "
          + "the bound of {}", event, sessionId, json.length(), Cluster.MAX_MESSAGE_CHARS);
      return;
    }
    if (Protocol.TURN_STARTED.equals(event)) {
      JsonNode turn = payload.path("turn");
      long[] state = numbering.computeIfAbsent(turn.path("_id").asText(), FeedRelay::fresh);
      synchronized (state) {
        state[2] = -1; // this node starts the turn: its first event follows none
      }
      later(new Append(turn.path("_id").asText(), sessionFeed(sessionId),
          turn.path("seq").asLong(), event, json, false, units(json)));
      return;
    }
    String turnId = payload.path("turnId").asText(null);
    if (turnId == null) {
      return; // a session's news (a deletion) is not a turn's
    }
    long[] state = numbering.computeIfAbsent(turnId, FeedRelay::fresh);
    synchronized (state) { // a turn's numbers, pushes and appends in one order
      long number = number(state, payload.get("seq"));
      if (number >= 0) {
        if (waiting.size() < PUBLISH_BELOW) { // else behind: the followers read the feed
          publishing(new Cluster.FeedAppend(turnId, number, event, json), state[2]);
        }
        state[2] = number;
        later(new Append(turnId, turnId, number, event, json, false, units(json)));
      }
    }
    if (Protocol.WORK_ORDER_COMPLETE.equals(event)) {
      numbering.remove(turnId);
      later(new Append(turnId, turnId, 0, event, "", true, 1));
    }
  }

  /** The feed number of a turn's next event; -1 when its seq's slots are used up. */
  /**
   * The number of the last event of {@code turnId} this node's pages were given (the turn
   * goes on at another node: its numbering here is forgotten), or -1.
   */
  long handOver(String turnId) {
    long[] state = numbering.remove(turnId);
    // not under the turn's lock: a publisher may hold it up to MAX_BLOCK waiting for room
    return state == null ? -1 : (state[0] + 2) * 8 + state[1];
  }

  private static long[] fresh(String turnId) {
    return new long[] {-1, 0, Long.MIN_VALUE};
  }

  /** Pushes go ahead of the feed, which has every event: a failed one is only logged. */
  private void publishing(Cluster.FeedAppend event, long previousSeq) {
    try {
      cluster.publishing(event, previousSeq);
    } catch (RuntimeException e) {
      log.debug("event {} of turn {} not pushed: {}", event.seq(), event.turnId(),
          e.getMessage());
    }
  }

  private static long number(long[] state, JsonNode seq) {
    if (seq != null && seq.canConvertToLong()) {
      state[0] = Math.max(state[0], seq.asLong());
      state[1] = 0;
      return (seq.asLong() + 2) * 8;
    }
    if (state[1] >= SLOTS) {
      return -1;
    }
    state[1]++;
    return (state[0] + 2) * 8 + state[1];
  }
}
