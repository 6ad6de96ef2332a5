package dev.gadget.core.server.internal;

import java.time.Duration;

/**
 * Fencing of the live turns (docs/CLUSTER.md, "Fencing"): in a cluster, a node acts on a turn
 * (ends it, writes its blocks, takes a page's cancel or approval for it) only while no other
 * node holds the turn's drone. A drone that reconnects to another node is leased there with a
 * greater fence; the node it left learns it at its next renewal (every
 * {@link ClusterNode#RENEW_EVERY}), or sooner here, by asking the cluster who holds the drone
 * before it acts. It then lets the turn go ({@link LiveTurns#letGo}), storing, relaying and
 * telling nothing more of it, and drops the socket the drone left. On a single server, and
 * while the cluster cannot be reached, nothing is fenced.
 */
final class TurnFence {
  private final ClusterNode node;
  private final LiveTurns turns;
  private final ServerTimer timer;

  /** {@code node} null: a single server, where no turn is ever fenced. */
  TurnFence(ClusterNode node, LiveTurns turns, ServerTimer timer) {
    this.node = node;
    this.turns = turns;
    this.timer = timer;
  }

  /**
   * Whether this node must not act on {@code t}: another node holds its drone now (the turn is
   * let go here, the socket the drone left dropped), or it was let go already. One look-up in
   * the cluster while the turn runs here; false for a turn that ended here.
   */
  boolean lost(LiveTurn t) {
    if (node == null) {
      return false;
    }
    if (!t.ended && node.heldElsewhere(t.droneId) && turns.letGo(t)) {
      node.continuesElsewhere(t.turn);
      node.lost(t.droneId);
    }
    return t.letGo;
  }

  /**
   * For the turn's store writers, before each run of writes: whether another node holds its
   * drone now. The turn is then let go on the timer, not on the writer's thread: a thread that
   * holds the turn's lock may be waiting for these writes.
   */
  boolean writesLost(LiveTurn t) {
    if (node == null || t.ended || !node.heldElsewhere(t.droneId)) {
      return false;
    }
    timer.schedule(() -> lost(t), Duration.ZERO);
    return true;
  }
}
