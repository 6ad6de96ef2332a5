package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
 * Called under the turn's lock, so a turn's events are numbered in the order pages get them.
 */
final class FeedRelay implements WatcherRooms.Relay {
  private static final Logger log = LoggerFactory.getLogger(FeedRelay.class);
  /** How long a turn's feed is kept after its end, for pages that reconnect meanwhile. */
  static final Duration KEEP_AFTER_END = Duration.ofSeconds(60);
  /** Events without a seq that one seq's slot holds; more are not relayed. */
  private static final int SLOTS = 7;

  private final Cluster cluster;
  /** Per live turn: the last seq relayed and how many events without one followed it. */
  private final Map<String, long[]> numbering = new ConcurrentHashMap<>();

  FeedRelay(Cluster cluster) {
    this.cluster = cluster;
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
    try {
      if (Protocol.TURN_STARTED.equals(event)) {
        JsonNode turn = payload.path("turn");
        cluster.append(sessionFeed(sessionId), turn.path("seq").asLong(), event,
            payload.toString());
        return;
      }
      String turnId = payload.path("turnId").asText(null);
      if (turnId == null) {
        return; // a session's news (a deletion) is not a turn's
      }
      long number = number(turnId, payload.get("seq"));
      if (number >= 0) {
        cluster.append(turnId, number, event, payload.toString());
      }
      if (Protocol.WORK_ORDER_COMPLETE.equals(event)) {
        numbering.remove(turnId);
        cluster.endFeed(turnId, KEEP_AFTER_END);
      }
    } catch (ClusterException e) {
      log.debug("event '{}' of session {} not relayed: {}", event, sessionId, e.getMessage());
    } catch (IllegalArgumentException e) {
      log.warn("event '{}' of session {} not relayed to other nodes: {}", event, sessionId,
          e.getMessage());
    }
  }

  /** The feed number of a turn's next event; -1 when its seq's slots are used up. */
  private long number(String turnId, JsonNode seq) {
    long[] state = numbering.computeIfAbsent(turnId, k -> new long[] {-1, 0});
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
