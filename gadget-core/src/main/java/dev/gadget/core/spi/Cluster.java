package dev.gadget.core.spi;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * What the server nodes of one Gadget deployment share besides the {@link ChatStore}: only live
 * state that can be rebuilt (docs/CLUSTER.md). One instance is one node's view of the cluster.
 *
 * <ul>
 *   <li><b>Presence.</b> A drone's socket is held by one node at a time: {@link #acquire} leases
 *       the drone to this node (taking it over from any other node), the holder {@link #renew}s
 *       the lease before its time to live runs out, and each lease carries a fencing number that
 *       grows with every acquisition ({@link #lastFence} is the greatest so far): a node whose
 *       renewal fails has lost the drone and must not act on its turn any more.</li>
 *   <li><b>Turn feed.</b> A live turn's events, appended by the node that holds its drone with
 *       strictly growing sequence numbers (a repeat or an older number is dropped), read from a
 *       number by any node ({@link #read}, {@link #follow}), kept a while after the turn ends
 *       ({@link #endFeed}).</li>
 *   <li><b>Chat claims.</b> At most one turn runs in a chat session across the cluster: the
 *       node that starts a turn {@link #claimChat claims} the chat for it first (refused while
 *       another turn holds it), renews the claim with its leases, and releases it when the turn
 *       ends; a claim not renewed expires on its own (its node died). The claim names the turn,
 *       not the node, so the node that takes a turn over claims it again and keeps it.</li>
 *   <li><b>Node mail.</b> A request to another node (dispatch a prompt to the drone it holds,
 *       forward a cancel or an approval) and its answer, within a deadline ({@link #send},
 *       {@link #receiveMail}).</li>
 * </ul>
 *
 * <p>Every method is thread-safe and bounded: a call that needs the cluster's backend waits for
 * it at most the implementation's documented timeout, then throws {@link ClusterException}. A
 * message (an event or a mail body) is at most {@link #MAX_MESSAGE_CHARS} characters. Listeners
 * and mail handlers are called on the implementation's threads; they must not block for long and
 * must not throw (what they throw is logged and dropped).
 *
 * <p>Implementations: {@code dev.gadget.core.cluster.InProcessCluster} (the nodes of one process,
 * the single server's default) and {@code gadget-cluster-redis}. Both pass the contract kit
 * {@code ClusterContract} in the gadget-core test-jar.
 */
public interface Cluster extends AutoCloseable {
  /** The most characters of one feed event or mail body (1 MiB): no whole-turn payloads. */
  int MAX_MESSAGE_CHARS = 1 << 20;

  /** This node's id, unique in the cluster while the node runs. */
  String nodeId();

  /**
   * Leases {@code droneId} to this node for {@code ttl}, taking it from any node that held it
   * (the drone's socket is here now). The new lease's fencing number is greater than every
   * earlier one of this cluster.
   *
   * @throws ClusterException when the backend cannot be reached in time
   */
  Lease acquire(String droneId, Duration ttl);

  /**
   * Extends {@code lease} by {@code ttl} if it is still the drone's current lease; false when it
   * expired or another acquisition replaced it: this node has lost the drone.
   *
   * @throws ClusterException when the backend cannot be reached in time (the lease may still
   *     be held; the caller counts from its last successful renewal)
   */
  boolean renew(Lease lease, Duration ttl);

  /**
   * Gives {@code lease}, if it is still the drone's current lease, a new fencing number greater
   * than every one handed out and than {@code floor}, in one atomic step, for {@code ttl}; null
   * when it is not held any more. For a node whose fenced store write was refused by a fence
   * ({@code floor}) greater than its lease's while it still holds the drone: the cluster lost its
   * fencing counter (Redis restarted without its data) and takes it back up from the store.
   *
   * @throws ClusterException when the backend cannot be reached in time
   */
  Lease refence(Lease lease, long floor, Duration ttl);

  /** Gives {@code lease} up if it is still current; a replaced lease is left alone. */
  void release(Lease lease);

  /** The drone's current lease, if a node holds one that has not expired. */
  Optional<Lease> locate(String droneId);

  /**
   * The greatest fencing number any node of this cluster has been handed by {@link #acquire} so
   * far (0 before the first): at least the fence of every lease acquired before this call, and
   * every {@link #acquire} that starts after this call returns a greater one. A node that reads
   * it before a {@link #locate} and writes with it therefore loses to any node that leases the
   * drone after the read (docs/CLUSTER.md, "Fencing").
   *
   * @throws ClusterException when the backend cannot be reached in time
   */
  long lastFence();

  /**
   * Claims chat session {@code sessionId} for turn {@code turnId} for {@code ttl}: true when no
   * turn held it (or its claim expired), and true, with the claim extended, when this very turn
   * holds it already (a node taking the turn over); false when another turn holds it. Atomic
   * across every node: of two claims for two turns at once, exactly one wins.
   *
   * @throws ClusterException when the backend cannot be reached in time
   */
  boolean claimChat(String sessionId, String turnId, Duration ttl);

  /**
   * Extends the chat's claim by {@code ttl} if turn {@code turnId} still holds it; false when
   * it expired or another turn holds it.
   *
   * @throws ClusterException when the backend cannot be reached in time
   */
  boolean renewChat(String sessionId, String turnId, Duration ttl);

  /** Frees the chat if turn {@code turnId} holds it; a claim of another turn is left alone. */
  void releaseChat(String sessionId, String turnId);

  /** The turn that holds the chat's claim, if a claim has not expired. */
  Optional<String> chatClaim(String sessionId);

  /**
   * Appends an event to a live turn's feed, if {@code seq} is greater than every number
   * appended to it so far; returns false (and changes nothing) for a repeat or an older number.
   *
   * @param seq the event's number in the turn, 0 or more
   * @param event the event's name
   * @param json the event's payload, at most {@link #MAX_MESSAGE_CHARS} characters
   * @throws IllegalArgumentException when the payload is too long
   * @throws ClusterException when the backend cannot be reached in time
   */
  boolean append(String turnId, long seq, String event, String json);

  /**
   * Appends {@code appends} in order, as {@link #append} would one by one, and returns for each
   * whether it was appended (false for a repeat or an older number). Every payload is checked
   * before anything is appended. Implementations make it cheaper than the calls one by one (the
   * Redis one sends the whole batch in one round trip); callers keep a batch modest (the
   * server's relay sends at most 512).
   *
   * @throws IllegalArgumentException when a payload is too long (nothing is appended)
   * @throws ClusterException when the backend cannot be reached in time; a prefix of the batch
   *     may have been appended, so the caller sends it again whole and the repeats are dropped
   */
  default boolean[] appendAll(List<FeedAppend> appends) {
    for (FeedAppend a : appends) {
      FeedAppend.checkSize(a.json());
    }
    boolean[] appended = new boolean[appends.size()];
    for (int i = 0; i < appended.length; i++) {
      FeedAppend a = appends.get(i);
      appended[i] = append(a.turnId(), a.seq(), a.event(), a.json());
    }
    return appended;
  }

  /**
   * A turn's event about to be appended to its feed by this node ({@link #appendAll}, which
   * still follows), told on the publishing thread in the order of its appends, with the number
   * of the event this node published before it in the same feed ({@code previousSeq}; -1 for
   * the turn's first, {@link Long#MIN_VALUE} when unknown: the turn was taken over here). A
   * cluster may hand it to the other nodes' {@link #follow}ers at once, ahead of the feed, as
   * long as each subscription still gets each event once and in order. A node may leave events
   * out (it does while its relay is far behind); the next one told still names the one before
   * it. Must not block; the default does nothing.
   */
  default void publishing(FeedAppend event, long previousSeq) {}

  /**
   * At most {@code max} events of the turn's feed numbered after {@code afterSeq}, in order;
   * empty when there are none (or the feed is gone). Does not wait for new events.
   */
  List<FeedEvent> read(String turnId, long afterSeq, int max);

  /**
   * Delivers to {@code listener}, in order and each once, every event of the turn's feed
   * numbered after {@code afterSeq}: those already there first, then each new one soon after it
   * is appended, until the subscription is closed. Events are delivered on one of the
   * implementation's threads, one at a time per subscription.
   */
  Subscription follow(String turnId, long afterSeq, FeedListener listener);

  /**
   * The turn has ended: its feed is kept for {@code keep} (pages that reconnect catch up from
   * it), then removed.
   */
  void endFeed(String turnId, Duration keep);

  /**
   * Handles this node's mail from now on (replacing any earlier handler). Until a handler is
   * set, mail to this node is answered with an error.
   */
  void receiveMail(MailHandler handler);

  /**
   * Sends a request to node {@code nodeId} (this node included) and completes with its answer,
   * or exceptionally with {@link ClusterException} when the node's handler failed, the node is
   * gone, or {@code deadline} passed. Never blocks the caller.
   *
   * @param kind what the request is (the handler's switch)
   * @param body the request, at most {@link #MAX_MESSAGE_CHARS} characters
   */
  CompletableFuture<String> send(String nodeId, String kind, String body, Duration deadline);

  /** Whether the backend answered the last time this node needed it. */
  boolean reachable();

  /** Stops this node's threads and connections; its leases expire on their own. */
  @Override
  void close();

  /**
   * A drone leased to a node.
   *
   * @param droneId the drone
   * @param nodeId the node that holds its socket
   * @param fence the fencing number: greater for every later acquisition
   */
  record Lease(String droneId, String nodeId, long fence) {
    public Lease {
      Objects.requireNonNull(droneId, "droneId");
      Objects.requireNonNull(nodeId, "nodeId");
    }
  }

  /**
   * One event of a turn's feed.
   *
   * @param seq its number in the turn
   * @param event its name
   * @param json its payload
   */
  record FeedEvent(long seq, String event, String json) {
    public FeedEvent {
      Objects.requireNonNull(event, "event");
      Objects.requireNonNull(json, "json");
    }
  }

  /**
   * One event to append to a turn's feed ({@link Cluster#appendAll}).
   *
   * @param turnId the feed
   * @param seq the event's number in the turn, 0 or more
   * @param event its name
   * @param json its payload, at most {@link Cluster#MAX_MESSAGE_CHARS} characters
   */
  record FeedAppend(String turnId, long seq, String event, String json) {
    public FeedAppend {
      Objects.requireNonNull(turnId, "turnId");
      Objects.requireNonNull(event, "event");
      Objects.requireNonNull(json, "json");
    }

    /**
     * Throws {@link IllegalArgumentException} when {@code json} is over
     * {@link Cluster#MAX_MESSAGE_CHARS} characters.
     */
    public static void checkSize(String json) {
      if (json.length() > MAX_MESSAGE_CHARS) {
        throw new IllegalArgumentException("a cluster message is at most " + MAX_MESSAGE_CHARS
            + " characters; this one has " + json.length());
      }
    }
  }

  /** Receives a followed turn's events ({@link #follow}). */
  @FunctionalInterface
  interface FeedListener {
    /** The next event, in order. */
    void onEvent(FeedEvent event);
  }

  /** A {@link #follow} in progress. */
  interface Subscription extends AutoCloseable {
    /** No more events are delivered once this returns (one being delivered may finish). */
    @Override
    void close();
  }

  /** Answers the mail sent to this node ({@link #receiveMail}). */
  @FunctionalInterface
  interface MailHandler {
    /**
     * The answer to one request; what it throws reaches the sender as a
     * {@link ClusterException} with its message.
     *
     * @param fromNode the sending node
     * @param kind what the request is
     * @param body the request
     */
    String answer(String fromNode, String kind, String body) throws Exception;
  }
}
