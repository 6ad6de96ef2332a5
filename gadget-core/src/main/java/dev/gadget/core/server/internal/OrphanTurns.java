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
      for (ChatTurn t : settings.store().listUnfinishedTurns()) {
        running.add(t.id());
        if (turns.get(t.id()) != null || held(t)) {
          unheldSince.remove(t.id());
          continue;
        }
        long since = unheldSince.computeIfAbsent(t.id(), k -> now);
        if (now - since >= grace) {
          end(t, grace);
          unheldSince.remove(t.id());
        }
      }
    } catch (StoreException | ClusterException e) {
      log.debug("running turns not checked now: {}", e.getMessage());
      return;
    }
    unheldSince.keySet().retainAll(running);
  }

  private boolean held(ChatTurn t) {
    return t.droneId() != null && cluster.locate(t.droneId()).isPresent();
  }

  private void end(ChatTurn t, long graceMillis) {
    String error = "the server node that ran this turn left the cluster, and its drone did not "
        + "come back to any node within " + graceMillis / 1000 + " s";
    if (!settings.store().finalizeTurn(t.id(), TurnStatus.INTERRUPTED, t.stats(), error,
        settings.clock().instant())) {
      return; // another node ended it, or its drone ended it meanwhile
    }
    log.info("turn {} ended interrupted: {}", t.id(), error);
    Payloads.WorkOrderComplete end = new Payloads.WorkOrderComplete(t.id(), LAST_SEQ,
        TurnStatus.INTERRUPTED, t.stats() == null ? TurnStats.EMPTY : t.stats(), error, null);
    relay.published(t.sessionId(), Protocol.WORK_ORDER_COMPLETE, Protocol.args(end));
  }
}
