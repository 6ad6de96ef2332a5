package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import dev.gadget.core.spi.StoreException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In a cluster: the running turns of the store that no node runs any more (their node died and
 * their drone did not come back to any node). A turn whose drone no node has held for the drone
 * grace period ends {@code interrupted}, as on a single server, and the pages of every node are
 * told through its feed. Any node may find it; the store ends it once.
 *
 * <p>The end is fenced (docs/CLUSTER.md, "Fencing"): each sweep reads the cluster's
 * {@link Cluster#lastFence} once, before any look-up, and ends an orphan with that number. A node
 * that leases the drone after the read has a greater number, and its claim of the turn makes the
 * store refuse this end ({@code FENCED}: the turn goes on there, nothing is told); a lease taken
 * before the read is seen by the look-up that follows it.
 */
final class OrphanTurns {
  private static final Logger log = LoggerFactory.getLogger(OrphanTurns.class);
  /** A seq above any a drone sends: the end is relayed after every event of the turn. */
  static final long LAST_SEQ = Long.MAX_VALUE / 16;

  private final ServerSettings settings;
  private final Cluster cluster;
  private final LiveTurns turns;
  private final WatcherRooms.Relay relay;
  /** When each turn was first seen without a node, by this node. */
  private final Map<String, Long> unheldSince = new HashMap<>();
  /** The running turns whose end the store refused for its fence: told at INFO once each. */
  private final Set<String> refused = new HashSet<>();

  OrphanTurns(ServerSettings settings, Cluster cluster, LiveTurns turns,
      WatcherRooms.Relay relay) {
    this.settings = settings;
    this.cluster = cluster;
    this.turns = turns;
    this.relay = relay;
  }

  /** Looks at the store's running turns once; called by one thread at a time. */
  synchronized void sweep() {
    long now = settings.clock().millis();
    long grace = settings.droneGracePeriod().toMillis();
    Set<String> running = new HashSet<>();
    try {
      long fence = cluster.lastFence(); // before every look-up below
      for (ChatTurn t : settings.store().listUnfinishedTurns()) {
        running.add(t.id());
        if (turns.get(t.id()) != null || held(t)) {
          unheldSince.remove(t.id());
          continue;
        }
        long since = unheldSince.computeIfAbsent(t.id(), k -> now);
        if (now - since >= grace) {
          end(t, grace, fence);
          unheldSince.remove(t.id());
        }
      }
    } catch (StoreException | ClusterException e) {
      log.debug("running turns not checked now: {}", e.getMessage());
      if (e instanceof ClusterException) {
        // after an outage a turn is an orphan only once seen unheld for a whole grace period
        // again: a node that took its drone over meanwhile (unleased) leases it again first
        unheldSince.clear();
      }
      return;
    }
    unheldSince.keySet().retainAll(running);
    refused.retainAll(running);
  }

  private boolean held(ChatTurn t) {
    return t.droneId() != null && cluster.locate(t.droneId()).isPresent();
  }

  private void end(ChatTurn t, long graceMillis, long fence) {
    String error = "the server node that ran this turn left the cluster, and its drone did not "
        + "come back to any node within " + graceMillis / 1000 + " s";
    if (!finalize(t, error, fence, true)) {
      return;
    }
    log.info("turn {} ended interrupted: {}", t.id(), error);
    Payloads.WorkOrderComplete end = new Payloads.WorkOrderComplete(t.id(), LAST_SEQ,
        TurnStatus.INTERRUPTED, t.stats() == null ? TurnStats.EMPTY : t.stats(), error, null);
    relay.published(t.sessionId(), Protocol.WORK_ORDER_COMPLETE, Protocol.args(end));
  }

  /**
   * Ends {@code t} fenced; false when it had ended (another node or its drone ended it), or
   * another node took it over. A refusal while still no node holds the drone means the store's
   * greater fence is from before the cluster lost its counter (Redis restarted empty), not from a
   * node that took the turn over: the end is made again once with the store's fence.
   */
  private boolean finalize(ChatTurn t, String error, long fence, boolean mayRetry) {
    try {
      return settings.store().finalizeTurn(t.id(), TurnStatus.INTERRUPTED, t.stats(), error,
          settings.clock().instant(), fence);
    } catch (StoreException e) {
      if (e.reason() != StoreException.Reason.FENCED) {
        throw e;
      }
      if (mayRetry && e.heldFence() > fence && !held(t)) {
        return finalize(t, error, e.heldFence(), false);
      }
      String why = "its drone came back to another node, which took the turn over after this "
          + "node looked for it";
      if (refused.add(t.id())) {
        log.info("turn {} is not ended here: {} ({})", t.id(), why, e.getMessage());
      } else {
        log.debug("turn {} is not ended here: {} ({})", t.id(), why, e.getMessage());
      }
      return false;
    }
  }
}
