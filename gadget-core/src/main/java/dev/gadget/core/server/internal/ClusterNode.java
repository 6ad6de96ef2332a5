package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import dev.gadget.core.transport.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This server as a node of a cluster: it leases each drone whose socket it holds (renewed every
 * {@link #RENEW_EVERY}; a renewal refused means another node took the drone, and this node drops
 * the socket and no longer acts on its turn), and it carries a page's prompt or cancel to the
 * node that holds the drone when no drone of the user is here (node mail, answered by that
 * node's {@link TurnDispatcher}).
 */
public final class ClusterNode {
  private static final Logger log = LoggerFactory.getLogger(ClusterNode.class);
  /** A lease's time to live: a node that died frees its drones this long after. */
  static final Duration LEASE_TTL = Duration.ofSeconds(10);
  /** How often this node renews its leases. */
  static final Duration RENEW_EVERY = Duration.ofSeconds(3);
  static final String DISPATCH = "dispatch";
  static final String CANCEL = "cancel";
  static final String APPROVAL = "approval";

  private final ServerSettings settings;
  private final Cluster cluster;
  private final DroneRouter router;
  private final DroneLeases leases;
  private final LeaseRefencing refencing;
  private final RemoteTurns remote;
  private LiveTurns turns;
  private ChatClaims claims;
  private FeedRelay relay;
  private DroneNews news;
  private RemoteDrones drones;
  private OrphanTurns orphans;
  private java.util.concurrent.ScheduledFuture<?> orphanSweep;
  private volatile TurnDispatcher dispatcher;
  private volatile ApprovalDesk approvals;

  private ClusterNode(ServerSettings settings, Cluster cluster, DroneRouter router,
      RemoteTurns remote) {
    this.settings = settings;
    this.cluster = cluster;
    this.router = router;
    this.remote = remote;
    this.leases = new DroneLeases(cluster, LEASE_TTL);
    this.refencing = new LeaseRefencing(cluster, leases.map(), LEASE_TTL);
  }

  /** This server joins {@code cluster}: its pages' events go there, other nodes' come here. */
  public static ClusterNode join(ServerSettings settings, Cluster cluster, DroneRouter router,
      LiveTurns turns, WatcherRooms rooms, ServerTimer timer) {
    RemoteTurns remote = new RemoteTurns(cluster, rooms, turns, timer);
    ClusterNode node = new ClusterNode(settings, cluster, router, remote);
    node.turns = turns;
    node.claims = new ChatClaims(cluster, turns);
    node.relay = new FeedRelay(cluster);
    node.orphans = new OrphanTurns(settings, cluster, turns, node.relay);
    rooms.relayTo(node.relay);
    node.news = new DroneNews(cluster, settings.store(), node, rooms);
    node.drones = new RemoteDrones(node, cluster, router, settings);
    rooms.newsTo(node.news);
    turns.cluster(remote, node);
    return node;
  }

  /**
   * Renews this node's leases from now on, and looks for running turns no node runs (a third of
   * the drone grace period apart, 1 to 10 s).
   */
  public java.util.concurrent.ScheduledFuture<?> start(ServerTimer timer) {
    log.info("this server is node {} of a cluster", cluster.nodeId());
    long sweepEvery = Math.max(1_000, Math.min(10_000, settings.droneGracePeriod().toMillis() / 3));
    orphanSweep = timer.every(orphans::sweep, sweepEvery);
    return timer.every(this::renew, RENEW_EVERY.toMillis());
  }

  /** This node's lease of the drone, or null when it holds none. */
  Cluster.Lease lease(String droneId) {
    return leases.get(droneId);
  }

  /**
   * The store refused a write for a fence ({@code floor}) above this node's lease of the drone:
   * the lease is numbered again above it ({@link LeaseRefencing}); false when not held any more.
   */
  boolean refence(String droneId, long floor) {
    return refencing.refence(droneId, floor);
  }

  /** The user's drones other nodes hold: requests to them, and what they offer. */
  RemoteDrones drones() {
    return drones;
  }

  /** The node's id in the cluster. */
  String nodeId() {
    return cluster.nodeId();
  }

  /** Mail to this node is answered by {@code d} and {@code desk} from now on. */
  void answerWith(TurnDispatcher d, ApprovalDesk desk) {
    this.dispatcher = d;
    this.approvals = desk;
    cluster.receiveMail(this::answer);
  }

  private String answer(String from, String kind, String body) throws Exception {
    JsonNode m = GadgetJson.mapper().readTree(body);
    String userId = m.path("userId").asText();
    TurnDispatcher d = dispatcher;
    return switch (kind) {
      case DISPATCH -> {
        Payloads.SubmitPrompt req = GadgetJson.mapper().treeToValue(m.path("prompt"),
            Payloads.SubmitPrompt.class);
        log.info("node {} hands this node a prompt of session {}", from, req.sessionId());
        yield d.submit(userId, req);
      }
      case CANCEL -> {
        d.cancel(userId, m.path("turnId").asText());
        yield "ok";
      }
      case RemoteDrones.DRONE -> drones.answerRequest(m);
      case RemoteDrones.FACTS -> drones.answerFacts(m);
      case APPROVAL -> {
        approvals.answer(userId, GadgetJson.mapper().treeToValue(m.path("answer"),
            dev.gadget.core.protocol.ApprovalPayloads.AnswerApproval.class));
        yield "ok";
      }
      default -> throw new IllegalArgumentException("no such request: " + kind);
    };
  }

  /** The drone's socket is on this node now: leases it (taking it from any other node). */
  void droneConnected(ConnectedDrone drone) {
    if (leases.take(drone)) {
      claims.takeAdopted(); // the turn it runs, if this node just took it over
    }
  }

  /**
   * The drone's socket closed: its lease is given up, unless it has connected here again since.
   */
  void droneDisconnected(ConnectedDrone drone) {
    leases.giveUp(drone);
  }

  /**
   * A seed-004 client of this node follows {@code sessionId}: the turns other nodes run in it
   * are relayed here too (to {@link WatcherRooms#toObservers}).
   */
  void follow(String sessionId) {
    try {
      remote.follow(sessionId);
    } catch (ClusterException e) {
      throw new RequestException("the other server nodes cannot be reached now");
    }
  }

  /**
   * A turn this node runs is one another node stopped running: it is not relayed here, and its
   * chat is claimed for it here.
   */
  void adopted(ChatTurn turn) {
    remote.adopted(turn.id());
    claims.adopted(turn.sessionId(), turn.id());
  }

  /**
   * Claims the chat for a turn about to start on this node: false when a turn runs in it on
   * any node (the claim is atomic across nodes, docs/CLUSTER.md).
   */
  boolean claimChat(String sessionId, String turnId) {
    return claims.claim(sessionId, turnId);
  }

  /** The turn ended here, or will not start: its chat is free on every node. */
  void releaseChat(ChatTurn turn) {
    claims.release(turn.sessionId(), turn.id());
  }

  /**
   * Renews every lease; a drone another node took over is dropped here (its socket closed:
   * the drone is on the other node now).
   */
  void renew() {
    for (String droneId : leases.renew()) {
      if (!letGoTurnOf(droneId)) {
        dropSocket(droneId);
      }
    }
    claims.takeAdopted(); // a drone leased again just now may run a turn taken over
    claims.renewAll();
    remote.sweep();
  }

  /**
   * Another node took the drone: its running turn here, if any, goes on there (let go here,
   * the socket dropped, this node's pages following it from the cluster). False when it runs
   * none here.
   */
  private boolean letGoTurnOf(String droneId) {
    ConnectedDrone d = router.find(droneId);
    String turnId = d == null ? null : d.activeTurnId;
    LiveTurn t = turnId == null ? null : turns.get(turnId);
    return t != null && turns.fence.lost(t);
  }

  /** Another node took the drone: its socket here (half-open, or this node paused) is closed. */
  void lost(String droneId) {
    leases.forget(droneId);
    dropSocket(droneId);
  }

  /** {@code turn}, let go here, goes on elsewhere: this node's pages follow it from the cluster. */
  void continuesElsewhere(ChatTurn turn) {
    remote.continueElsewhere(turn, relay.handOver(turn.id()));
  }

  private void dropSocket(String droneId) {
    ConnectedDrone d = router.find(droneId);
    Connection c = d == null ? null : d.connection;
    log.warn("drone {} is leased to another node now: this node drops its socket", droneId);
    if (c != null) {
      c.disconnect();
    }
  }

  /**
   * Whether another node holds the drone now (asked of the cluster, not this node's last
   * renewal): this node must not end, write or dispatch its turn. False when the cluster cannot
   * be reached (this node goes on serving what it holds).
   */
  boolean heldElsewhere(String droneId) {
    try {
      Optional<Cluster.Lease> lease = cluster.locate(droneId);
      return lease.isPresent() && !lease.get().nodeId().equals(cluster.nodeId());
    } catch (ClusterException e) {
      return false;
    }
  }

  /**
   * Sends the prompt to the node that holds a drone of the user (the session's workspace
   * first); that node's answer (the turn's id, or why not) is the answer.
   *
   * @throws RequestException when no node holds a drone of the user, or the node refused
   */
  String submitElsewhere(String userId, ChatSession session, Payloads.SubmitPrompt req,
      RequestException here) {
    List<DroneRegistration> drones = new ArrayList<>(settings.store().listDrones(userId));
    drones.sort((a, b) -> Boolean.compare(!a.workspaceId().equals(session.workspaceId()),
        !b.workspaceId().equals(session.workspaceId())));
    RequestException last = here;
    for (DroneRegistration reg : drones) {
      Optional<Cluster.Lease> lease = locate(reg.id());
      if (lease.isEmpty() || lease.get().nodeId().equals(cluster.nodeId())) {
        continue;
      }
      ObjectNode body = GadgetJson.mapper().createObjectNode().put("userId", userId);
      body.set("prompt", GadgetJson.mapper().valueToTree(req));
      try {
        return ask(lease.get().nodeId(), DISPATCH, body);
      } catch (RequestException e) {
        last = e; // busy there: another node may have a free one
      }
    }
    throw last;
  }

  /**
   * Refuses a prompt (or a deletion) while a turn of the session runs on any node: its chat is
   * claimed. When the cluster cannot be reached, the store says: its last turn is running and a
   * node holds its drone.
   */
  void checkIdle(String sessionId) {
    checkIdle(sessionId, "a turn is already running in this chat session");
  }

  /** As above, refusing with {@code refusal}. */
  void checkIdle(String sessionId, String refusal) {
    try {
      if (claims.holder(sessionId).isPresent()) {
        throw new RequestException(refusal);
      }
      return;
    } catch (ClusterException e) {
      // away: the store's last turn says, as far as it can
    }
    List<ChatTurn> stored = settings.store().listTurns(sessionId);
    ChatTurn last = stored.isEmpty() ? null : stored.get(stored.size() - 1);
    if (last != null && last.status() == dev.gadget.core.model.TurnStatus.PROCESSING
        && last.droneId() != null && locate(last.droneId()).isPresent()) {
      throw new RequestException(refusal);
    }
  }

  /**
   * Runs {@code action} (a deletion) with the chats of {@code sessionIds} claimed for it, so that
   * no node starts a turn in one of them meanwhile; refuses with {@code refusal} of a chat in
   * which a turn runs on any node.
   */
  void whileClaimed(List<String> sessionIds, java.util.function.UnaryOperator<String> refusal,
      Runnable action) {
    String marker = "changing-" + dev.gadget.core.Ids.next();
    List<String> claimed = new ArrayList<>();
    try {
      for (String sessionId : sessionIds) {
        checkIdle(sessionId, refusal.apply(sessionId));
        if (!claims.claim(sessionId, marker)) {
          throw new RequestException(refusal.apply(sessionId));
        }
        claimed.add(sessionId);
      }
      action.run();
    } finally {
      claimed.forEach(sessionId -> claims.release(sessionId, marker));
    }
  }

  /** Asks the node that runs the turn's drone to cancel it. */
  void cancelElsewhere(String userId, ChatTurn turn) {
    ask(nodeOf(turn), CANCEL, GadgetJson.mapper().createObjectNode()
        .put("userId", userId).put("turnId", turn.id()));
  }

  /** Hands a page's answer to a waiting call to the node that runs the turn's drone. */
  void approvalElsewhere(String userId, ChatTurn turn,
      dev.gadget.core.protocol.ApprovalPayloads.AnswerApproval answer) {
    ObjectNode body = GadgetJson.mapper().createObjectNode().put("userId", userId);
    body.set("answer", GadgetJson.mapper().valueToTree(answer));
    ask(nodeOf(turn), APPROVAL, body);
  }

  /** The node that holds the turn's drone (not this one). */
  private String nodeOf(ChatTurn turn) {
    Optional<Cluster.Lease> lease = turn.droneId() == null ? Optional.empty()
        : locate(turn.droneId());
    if (lease.isEmpty() || lease.get().nodeId().equals(cluster.nodeId())) {
      throw new RequestException("the turn's drone is not connected to any node");
    }
    return lease.get().nodeId();
  }

  /** Who holds the drone: fails in words when the cluster cannot be reached. */
  Optional<Cluster.Lease> locate(String droneId) {
    try {
      return cluster.locate(droneId);
    } catch (ClusterException e) {
      throw new RequestException("the other server nodes cannot be reached now");
    }
  }

  private String ask(String node, String kind, JsonNode body) {
    Duration deadline = settings.ackTimeout();
    try {
      return cluster.send(node, kind, body.toString(), deadline)
          .get(deadline.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new RequestException(e.getCause() == null ? "the other node failed"
          : e.getCause().getMessage());
    } catch (TimeoutException e) {
      throw new RequestException("the server node that holds your drone did not answer");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RequestException("interrupted");
    }
  }

  /** The node is closing: its leases are given up, its relays stopped. */
  public void close() {
    if (orphanSweep != null) {
      orphanSweep.cancel(false);
    }
    leases.giveUpAll();
    remote.close();
    relay.close();
    news.close();
    drones.close();
  }
}
