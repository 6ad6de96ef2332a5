package dev.gadget.core.server.internal;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In a cluster: the chats this node runs a turn in, each claimed for its turn
 * ({@link Cluster#claimChat}), so that one turn at a time runs in a chat across every node. A
 * claim is taken before the turn's work order is sent, renewed with the drone leases, released
 * when the turn ends (before pages are told), and taken again by the node that takes the turn
 * over. While the cluster cannot be reached a claim is held here only and taken when it answers
 * again (this node's own check, {@link LiveTurns#runningIn}, still holds).
 */
final class ChatClaims {
  private static final Logger log = LoggerFactory.getLogger(ChatClaims.class);

  private final Cluster cluster;
  private final LiveTurns turns;
  /** The chats claimed (or to claim) by this node: session id to turn id. */
  private final Map<String, String> held = new ConcurrentHashMap<>();
  /** Of those, the turns taken over whose claim is not taken yet. */
  private final Map<String, String> adopted = new ConcurrentHashMap<>();
  /**
   * A chat's claim, release and renewal in the cluster one at a time (locks shared by chats whose
   * ids hash alike): a renewal never claims again a chat its turn has just released.
   */
  private final StripedLocks locks = new StripedLocks(64);

  ChatClaims(Cluster cluster, LiveTurns turns) {
    this.cluster = cluster;
    this.turns = turns;
  }

  /**
   * Claims the chat for a turn about to start here: false when another turn holds it (on any
   * node). True, and tried again at the next renewal, when the cluster cannot be reached.
   */
  boolean claim(String sessionId, String turnId) {
    synchronized (locks.of(sessionId)) {
      try {
        if (!cluster.claimChat(sessionId, turnId, ClusterNode.LEASE_TTL)) {
          return false;
        }
      } catch (ClusterException e) {
        log.debug("chat {} claimed on this node only for now: {}", sessionId, e.getMessage());
      }
      held.put(sessionId, turnId);
      return true;
    }
  }

  /**
   * A turn this node took over from another: its chat is claimed for it again by
   * {@link #takeAdopted} (this is called under the routing lock, which waits for no Redis).
   */
  void adopted(String sessionId, String turnId) {
    held.put(sessionId, turnId);
    adopted.put(sessionId, turnId);
  }

  /** Claims again the chats of the turns taken over since the last call. */
  void takeAdopted() {
    for (Map.Entry<String, String> e : Map.copyOf(adopted).entrySet()) {
      if (adopted.remove(e.getKey(), e.getValue())) {
        renew(e.getKey(), e.getValue());
      }
    }
  }

  /**
   * The turn ended here (the store took its end from this node) or will not start: its chat is
   * free, on every node. Released in the cluster even when a renewal has let it go meanwhile
   * (the turn was no longer live here, and looked taken over): a claim left there would refuse
   * the chat's next prompt until it expired. The cluster releases only this turn's claim.
   */
  void release(String sessionId, String turnId) {
    synchronized (locks.of(sessionId)) {
      held.remove(sessionId, turnId);
      try {
        cluster.releaseChat(sessionId, turnId);
      } catch (ClusterException e) {
        log.debug("chat {} not released (its claim expires on its own): {}", sessionId,
            e.getMessage());
      }
    }
  }

  /**
   * Renews every claim of a turn this node still runs (or is starting); the claim of a turn
   * another node took over is left to that node. A claim lost meanwhile (the cluster lost its
   * keys) is taken again when the chat is free.
   */
  void renewAll() {
    for (Map.Entry<String, String> e : Map.copyOf(held).entrySet()) {
      String session = e.getKey();
      String turn = e.getValue();
      if (turns.get(turn) == null && !turns.runningIn(session)) {
        held.remove(session, turn); // let go: it goes on at another node
        continue;
      }
      renew(session, turn);
    }
  }

  private void renew(String sessionId, String turnId) {
    synchronized (locks.of(sessionId)) {
      if (!turnId.equals(held.get(sessionId))) {
        return; // its turn ended (and released the chat) since the renewal looked
      }
      try {
        if (!cluster.renewChat(sessionId, turnId, ClusterNode.LEASE_TTL)
            && !cluster.claimChat(sessionId, turnId, ClusterNode.LEASE_TTL)) {
          log.warn("chat {} is claimed by another turn than {}, which runs here", sessionId,
              turnId);
        }
      } catch (ClusterException e) {
        // away: the next renewal tries again (the failure is logged once by the cluster)
      }
    }
  }

  /**
   * The turn that holds the chat on some node, if any.
   *
   * @throws ClusterException when the cluster cannot be reached
   */
  Optional<String> holder(String sessionId) {
    return cluster.chatClaim(sessionId);
  }
}
