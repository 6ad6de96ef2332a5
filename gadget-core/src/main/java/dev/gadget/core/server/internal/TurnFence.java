package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.StoreException;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fencing of the live turns (docs/CLUSTER.md, "Fencing"): in a cluster, a node acts on a turn
 * (ends it, writes its blocks, takes a page's cancel or approval for it) only while no other
 * node holds the turn's drone. A drone that reconnects to another node is leased there with a
 * greater fence; the node it left learns it at its next renewal (every
 * {@link ClusterNode#RENEW_EVERY}), or sooner here, by asking the cluster who holds the drone
 * before it acts. It then lets the turn go ({@link LiveTurns#letGo}), storing, relaying and
 * telling nothing more of it, and drops the socket the drone left.
 *
 * <p>The look-up leaves a window (a lease taken over just after it); the store closes it where
 * it keeps fences ({@link ChatStore#fencesTurns}): the turn's writes carry the fencing number of
 * this node's lease of its drone, a node that takes a turn over claims it with its greater one
 * first, and the store refuses the writes of the node that lost it ({@link #refused}). While the
 * cluster is away (the drone not leased), a turn's writes and claims carry the store's fence
 * plus one instead. On a single server nothing is fenced.
 */
final class TurnFence {
  private static final Logger log = LoggerFactory.getLogger(TurnFence.class);
  /** How many times a node the drone connected to claims above a claim it lost to, unleased. */
  private static final int AWAY_CLAIMS = 3;
  private final ClusterNode node;
  private final LiveTurns turns;
  private final ServerTimer timer;
  private final ChatStore store;

  /** {@code node} null: a single server, where no turn is ever fenced. */
  TurnFence(ClusterNode node, LiveTurns turns, ServerTimer timer, ChatStore store) {
    this.node = node;
    this.turns = turns;
    this.timer = timer;
    this.store = store;
  }

  /**
   * The fence this node's writes of {@code t} carry: the fencing number of its lease of the
   * turn's drone, or, once that lease is given up (the drone's link dropped), the one they last
   * carried (or the one it was claimed with, the cluster away), so that a write made after
   * another node took the turn over is still refused; -1 on a single server, or before the
   * first write of a turn whose drone is not leased ({@link #write} then takes the store's).
   */
  long fenceOf(LiveTurn t) {
    Cluster.Lease lease = node == null ? null : node.lease(t.droneId);
    if (lease != null && lease.fence() > t.fence) {
      t.fence = lease.fence();
    }
    return t.fence;
  }

  /**
   * The drone of {@code t} has just connected here: this node took the turn over and leased the
   * drone, or (the cluster away, no lease to be had) took it over or runs it still. The turn's
   * fence in the store is raised to the lease's, or without one to the store's fence plus one,
   * so that no node the drone left can write more of it. When the store holds a greater fence
   * (the drone went on to another node since), {@code t} is let go. Returns true when the turn
   * had ended in the store before the claim (its old node's end, or an orphan's, came between
   * this node's look-up of the turn and its claim): it is let go too, and the drone is to stop
   * it. After the claim no smaller fence can end it.
   */
  boolean endedBeforeClaim(LiveTurn t) {
    boolean leased = node != null && node.lease(t.droneId) != null;
    if (!leased && (node == null || !store.fencesTurns())) {
      return false;
    }
    try {
      StoreException refused = leased
          ? write(t, () -> {}, fence -> store.claimTurn(t.turn.id(), fence, node.nodeId()))
          : claimAway(t, AWAY_CLAIMS);
      if (refused != null) {
        log.info("turn {} is not taken over here: {}", t.turn.id(), refused.getMessage());
        refused(t);
        return false;
      }
      if (store.findTurn(t.turn.id()).map(ChatTurn::status).orElse(null)
          == TurnStatus.PROCESSING) {
        return false;
      }
    } catch (StoreException e) {
      log.warn("turn {} could not be claimed in the store: {}", t.turn.id(), e.getMessage());
      return false;
    }
    log.info("turn {} ended before this node claimed it: the drone is told to stop it",
        t.turn.id());
    turns.letGo(t);
    if (node != null) {
      node.releaseChat(t.turn); // claimed again for it here: the chat is free
    }
    return true;
  }

  /**
   * Makes one write of {@code t}: {@code plain} on a single server (or a store without fences),
   * else {@code fenced} with {@link #fenceOf} (without one, the store's fence plus one), and
   * once more when the store refused it while this node still holds the drone (its lease
   * numbered again above the store's fence: the cluster had lost its fencing counter). Returns
   * null once made, else the store's refusal for a greater fence (another node took the turn
   * over); other failures are thrown.
   */
  StoreException write(LiveTurn t, Runnable plain, LongConsumer fenced) {
    for (int attempt = 0; ; attempt++) {
      long fence = fenceOf(t);
      if (fence < 0 && node != null && store.fencesTurns()) {
        // a turn of a drone not leased (the cluster away when it started): claimed first with
        // the store's fence plus one, so that a node that takes the turn over claims above
        StoreException refused = claimAway(t, 1);
        if (refused != null) {
          return refused;
        }
        fence = t.fence;
      }
      if (fence < 0) {
        plain.run();
        return null;
      }
      try {
        fenced.accept(fence);
        return null;
      } catch (StoreException e) {
        if (e.reason() != StoreException.Reason.FENCED) {
          throw e;
        }
        // refused for an equal fence: another node claimed that very number
        long floor = e.heldFence() == fence ? fence + 1 : e.heldFence();
        if (attempt > 0 || node == null || e.heldFence() < 0 || !node.refence(t.droneId, floor)) {
          return e;
        }
      }
    }
  }

  /**
   * Claims {@code t} for this node while the cluster is away (its drone not leased) with the
   * store's fence plus one, up to {@code tries} times: a claim refused for that very number
   * (another node came to it first) is made again above it. Returns null once claimed, else the
   * last refusal.
   */
  private StoreException claimAway(LiveTurn t, int tries) {
    for (int i = 1; ; i++) {
      t.fence = storedFence(t.turn.id()) + 1;
      log.info("turn {} is claimed while the cluster is away: fence {}", t.turn.id(), t.fence);
      try {
        store.claimTurn(t.turn.id(), t.fence, node.nodeId());
        return null;
      } catch (StoreException e) {
        if (e.reason() != StoreException.Reason.FENCED) {
          throw e;
        }
        if (i >= tries) {
          return e;
        }
      }
    }
  }

  /**
   * The fence the store holds for the turn, 0 when none: asked with a claim at 0, which a greater
   * fence refuses, telling it (and which changes nothing else).
   */
  private long storedFence(String turnId) {
    try {
      store.claimTurn(turnId, 0);
      return 0;
    } catch (StoreException e) {
      if (e.reason() == StoreException.Reason.FENCED && e.heldFence() >= 0) {
        return e.heldFence();
      }
      throw e;
    }
  }

  /**
   * The store refused a write of {@code t} (another node claimed it with a greater fence): it is
   * let go here at once, without asking the cluster, as when the look-up finds it held elsewhere.
   */
  void refused(LiveTurn t) {
    if (turns.letGo(t)) {
      handOver(t);
    }
  }

  /**
   * {@code t} was let go here: this node's pages follow it at the node that holds its drone now,
   * and the socket the drone left here is dropped.
   */
  void handOver(LiveTurn t) {
    if (node != null) {
      node.continuesElsewhere(t.turn);
      node.lost(t.droneId);
    }
  }

  /**
   * Stores the end of {@code t}, fenced in a cluster; false when the store refused it for its
   * fence (another node took the turn over and ends it). Other failures are logged.
   */
  boolean storeEnd(LiveTurn t, TurnStatus status, TurnStats stats, String error, Instant at) {
    String id = t.turn.id();
    try {
      StoreException refused = write(t, () -> store.finalizeTurn(id, status, stats, error, at),
          fence -> store.finalizeTurn(id, status, stats, error, at, fence));
      if (refused != null) {
        log.info("turn {} is not ended here: {}", id, refused.getMessage());
        return false;
      }
    } catch (StoreException e) {
      log.error("could not store the end of turn {}: {}", id, e.getMessage());
    }
    return true;
  }

  /** How {@code t}'s block writes are fenced ({@link TurnWrites}). */
  TurnWrites.Fencing writes(LiveTurn t) {
    return new TurnWrites.Fencing() {
      @Override
      public boolean lost() {
        return writesLost(t);
      }

      @Override
      public StoreException write(Runnable plain, LongConsumer fenced) {
        return TurnFence.this.write(t, plain, fenced);
      }

      @Override
      public void refused() {
        timer.schedule(() -> TurnFence.this.refused(t), Duration.ZERO);
      }
    };
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
      handOver(t);
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
