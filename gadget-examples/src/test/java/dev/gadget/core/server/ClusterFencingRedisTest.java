package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.cluster.redis.RedisCluster;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.ApprovalPayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.InMemoryTransport;
import dev.gadget.core.transport.TransportClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Fencing (docs/CLUSTER.md): a node that lost its drone's lease cannot act on the drone's turn.
 * Three servers on one store and a real redis-server; ada's drone runs a turn on node A, then
 * goes to node B (a reconnect, which takes its lease with a greater fence) while A's socket to
 * it stays open, as a half-open socket or a node paused in a long GC pause leaves it, and while
 * A's renewals have not told it (they are stopped: {@link UnrenewedLeases}). A does not end the
 * turn, store its end or announce it to any page, nor write its blocks over what B stored; its
 * work order goes only to the drone's socket on B, once, acknowledged there; a cancel asked on A
 * reaches the drone on B.
 */
class ClusterFencingRedisTest extends RedisNodesTestBase {
  private static final int A = 0;
  private static final int B = 1;
  private static final int C = 2;

  private UnrenewedLeases leasesOfA;
  private final List<Cluster> clusters = new ArrayList<>();
  /** A's silence timeout: short, so that A would end a turn whose drone it no longer hears. */
  private Duration silenceOnA = Duration.ofSeconds(2);
  /** Whether the drone has left its socket on A: what A sends there is never answered. */
  private volatile boolean leftA;
  private volatile boolean droppedByA;
  private final AtomicInteger droneLinksClosedOnA = new AtomicInteger();
  private final BlockingQueue<JsonNode> decidedOnA = new LinkedBlockingQueue<>();
  private final BlockingQueue<JsonNode> decidedOnB = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> ordersOnA = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> ordersOnB = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> cancelsOnA = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> cancelsOnB = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> resumes = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> endsTriedOnA = new LinkedBlockingQueue<>();

  @Override
  InMemoryTransport transport(int node) {
    // A socket A drops is not opened again: the drone has gone to B
    return node == A ? noReconnect() : new InMemoryTransport();
  }

  @Override
  Cluster cluster(int node, RedisCluster redisNode) {
    Cluster c = redisNode;
    if (node == A) {
      leasesOfA = new UnrenewedLeases(redisNode);
      c = leasesOfA;
    }
    clusters.add(c);
    return c;
  }

  @Override
  GadgetServer.Builder settings(int node, GadgetServer.Builder builder) {
    return node == A ? builder.store(endsRecorded(fx.store, endsTriedOnA)).silenceTimeout(silenceOnA)
        .listener(new ServerListener() {
      @Override
      public void onConnectionClosed(ConnectionKind kind) {
        if (kind == ConnectionKind.DRONE) {
          droneLinksClosedOnA.incrementAndGet();
        }
      }
    }) : builder;
  }

  /** Ada's drone (workspace ws-1) on node A: it takes work orders until it leaves A. */
  private Connection droneOnA() {
    return rawDrone(A, "ws-1", null, new TransportClient.ClientListener() {
      @Override
      public void onDisconnect(Connection connection, String reason, boolean willReconnect) {
        droppedByA = true;
      }
    }, c -> {
      c.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
        ordersOnA.add(turnOf(args.get(0).get("workOrder")));
        if (!leftA) { // a socket the drone left answers nothing
          ack.send(Protocol.args(new Payloads.WorkOrderAck(true, null)));
        }
      });
      c.on(Protocol.CANCEL_WORK_ORDER, (args, ack) -> cancelsOnA.add(args.get(0)
          .get("turnId").asText()));
      c.on(Protocol.APPROVAL_DECIDED, (args, ack) -> decidedOnA.add(args.get(0)));
    });
  }

  /**
   * The drone goes to node B, running {@code activeTurn} (or none): A's renewals are stopped
   * first, so A goes on believing it holds the drone, whose socket there stays open.
   */
  private Connection droneToB(String activeTurn) {
    leasesOfA.freeze();
    leftA = true;
    return rawDrone(B, "ws-1", activeTurn, new TransportClient.ClientListener() {}, c -> {
      c.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
        ordersOnB.add(turnOf(args.get(0).get("workOrder")));
        ack.send(Protocol.args(new Payloads.WorkOrderAck(true, null)));
      });
      c.on(Protocol.CANCEL_WORK_ORDER, (args, ack) -> {
        cancelsOnB.add(args.get(0).get("turnId").asText());
        if (ack != null) {
          ack.send(Protocol.args(Payloads.OkReply.success()));
        }
      });
      c.on(Protocol.RESUME_STREAM, (args, ack) -> resumes.add(args.get(0).get("turnId")
          .asText()));
      c.on(Protocol.APPROVAL_DECIDED, (args, ack) -> decidedOnB.add(args.get(0)));
    });
  }

  private static String turnOf(com.fasterxml.jackson.databind.JsonNode order) {
    return order.get("chatTurn").get("_id").asText();
  }

  /** Ada's one drone, once stored and leased (so that a prompt on any node finds it). */
  private String droneId() {
    awaitDrones(1);
    return fx.store.listDrones(ada.user().id()).get(0).id();
  }

  /** B holds the drone's lease now (its fence greater than A's). */
  private void leasedTo(int node, String droneId) {
    await("the drone leased to node n" + node, () -> clusters.get(node).locate(droneId)
        .map(l -> l.nodeId().equals("n" + node)).orElse(false));
  }


  /**
   * A turn prompted on {@code page}, its order taken on A, its first 50 tokens seen there and
   * stored.
   */
  private String turnOnA(Connection onA, Page page, String session) throws Exception {
    droneId();
    String turn = page.submit(session, "hello");
    assertThat(ordersOnA.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    tokens(onA, turn, 0, 50);
    await("the first 50 tokens on the page", () -> page.seqs(turn, Protocol.RESPONSE).size()
        == 50);
    // A's checkpoint of them: A has nothing more to write of the turn unless it hears more
    await("the first 50 tokens stored", () -> storedText(turn).equals(expected(50)));
    return turn;
  }

  /** A turn on A watched from C ({@link #turnOnA}), then A's look-ups blinded. */
  private record Blinded(Connection onA, Page onC, String session, String turn) {}

  private Blinded blindedTurnOnA() throws Exception {
    start(3);
    Connection onA = droneOnA();
    Page onC = page(C);
    String session = fx.watchedSession(onC);
    String turn = turnOnA(onA, onC, session);
    leasesOfA.blind();
    return new Blinded(onA, onC, session, turn);
  }

  /**
   * The drone, alive on A until now, goes to B, which takes the turn over; it sends the turn
   * again from its start, as it does after a reconnect.
   */
  private Connection takenOverByB(Connection onA, String turn) throws Exception {
    onA.emit(Protocol.HEARTBEAT, Protocol.args(new Payloads.Heartbeat(turn, 49)));
    Connection onB = replayingOnB(turn);
    tokens(onB, turn, 0, 50);
    return onB;
  }

  /** The drone on B, running {@code turn}: B takes it over, and the drone starts its replay. */
  private Connection replayingOnB(String turn) throws Exception {
    Connection onB = droneToB(turn);
    assertThat(resumes.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("node B takes the turn over and asks for its events").isEqualTo(turn);
    onB.emit(Protocol.STREAM_REPLAY, Protocol.args(new ResumePayloads.StreamReplay(turn, 0,
        true)));
    return onB;
  }

  @Test
  void aNodeThatLostTheDroneNeitherEndsItsTurnNorTellsAnyPageItEnded() throws Exception {
    start(3);
    Connection onA = droneOnA();
    Page onC = page(C);
    String session = fx.watchedSession(onC);
    String turn = turnOnA(onA, onC, session);
    Connection onB = takenOverByB(onA, turn);

    // A hears nothing from the drone any more: past its silence timeout it acts on the turn
    await("node A acting on the turn it no longer runs", () -> droppedByA
        || stored(turn) != TurnStatus.PROCESSING);
    assertThat(stored(turn)).as("the turn in the store, after node A acted")
        .isEqualTo(TurnStatus.PROCESSING);
    assertThat(clusters.get(C).chatClaim(session)).as("the chat's claim").contains(turn);
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).as("ends told to C's page")
        .isZero();
    await("node A done with the socket the drone left", () -> droneLinksClosedOnA.get() > 0);
    assertThat(fx.store.listDrones(ada.user().id()).get(0).status())
        .as("the drone's stored status once A dropped the socket it left for B")
        .isNotEqualTo(DroneStatus.OFFLINE);

    tokens(onB, turn, 50, 100);
    onB.emitWithAck(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 100, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")), RuntimeFixture.WAIT)
        .get(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(onC.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
    assertThat(onC.seqs(turn, Protocol.RESPONSE)).as("each token once, in order")
        .containsExactlyElementsOf(range(100));
    ChatTurn done = fx.store.findTurn(turn).orElseThrow();
    assertThat(done.status()).isEqualTo(TurnStatus.FINISHED);
    assertThat(storedText(turn)).isEqualTo(expected(100));
    assertThat(ordersOnB).as("no work order sent again").isEmpty();
  }

  @Test
  void aNodeThatLostTheDroneWritesNoBlockOverWhatTheNewNodeStored() throws Exception {
    silenceOnA = Duration.ofSeconds(90); // A would not let the turn go for silence meanwhile
    start(3);
    Connection onA = droneOnA();
    Page onC = page(C);
    String session = fx.watchedSession(onC);
    String turn = turnOnA(onA, onC, session);
    Connection onB = takenOverByB(onA, turn);
    tokens(onB, turn, 50, 100);
    await("B's checkpoint of the turn", () -> storedText(turn).equals(expected(100)));

    // A, paused until now, reads what the drone had sent it before it moved: tokens 50 to 59
    tokens(onA, turn, 50, 60);
    await("node A acting on those tokens", () -> droppedByA
        || !storedText(turn).equals(expected(100)));
    assertThat(storedText(turn)).as("the turn's text in the store").isEqualTo(expected(100));
    end(onB, turn);
    onC.completion(turn);
    await("B's end stored", () -> stored(turn) == TurnStatus.FINISHED);
    assertThat(storedText(turn)).isEqualTo(expected(100));
    assertThat(onC.seqs(turn, Protocol.RESPONSE)).as("each token once, in order")
        .containsExactlyElementsOf(range(100));
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
  }

  /**
   * The store's fence (docs/CLUSTER.md, "Fencing"): A's look-ups are blinded too, as one made
   * just before B took the drone would be, so only the store stops A. B claimed the turn with its
   * greater fence when it took it over; A's checkpoint of the tokens it reads late is refused,
   * and A lets the turn go.
   */
  @Test
  void theStoreRefusesTheBlocksOfANodeWhoseLookUpMissedTheTakeOver() throws Exception {
    silenceOnA = Duration.ofSeconds(90);
    Blinded run = blindedTurnOnA();
    Connection onA = run.onA();
    Page onC = run.onC();
    String turn = run.turn();
    Connection onB = takenOverByB(onA, turn);
    tokens(onB, turn, 50, 100);
    await("B's checkpoint of the turn", () -> storedText(turn).equals(expected(100)));

    tokens(onA, turn, 50, 60);
    await("node A lets the turn go once the store refused it", () -> droppedByA);
    assertThat(storedText(turn)).as("the turn's text in the store").isEqualTo(expected(100));
    end(onB, turn);
    assertThat(onC.completion(turn).get("status").asText()).isEqualTo("finished");
    await("B's end stored", () -> stored(turn) == TurnStatus.FINISHED);
    assertThat(storedText(turn)).isEqualTo(expected(100));
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
  }

  /** As above, for the end: A's silence timeout ends the turn, and the store refuses that end. */
  @Test
  void theStoreRefusesTheEndOfANodeWhoseLookUpMissedTheTakeOver() throws Exception {
    Blinded run = blindedTurnOnA();
    Connection onA = run.onA();
    Page onC = run.onC();
    String turn = run.turn();
    Connection onB = takenOverByB(onA, turn);

    await("node A acting on the turn it no longer runs", () -> droppedByA
        || stored(turn) != TurnStatus.PROCESSING);
    assertThat(stored(turn)).as("the turn in the store, after node A acted")
        .isEqualTo(TurnStatus.PROCESSING);
    assertThat(clusters.get(C).chatClaim(run.session())).as("the chat's claim").contains(turn);
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).as("ends told to C's page")
        .isZero();
    tokens(onB, turn, 50, 100);
    end(onB, turn);
    assertThat(onC.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
    assertThat(onC.seqs(turn, Protocol.RESPONSE)).containsExactlyElementsOf(range(100));
    await("B's end stored", () -> stored(turn) == TurnStatus.FINISHED);
  }

  /**
   * A node whose link to the drone dropped gives the drone's lease up, but its writes of the turn
   * keep the fence they carried: once the drone is on B, A's end at the close of its grace
   * period (its look-up blinded) is refused by the store.
   */
  @Test
  void theStoreRefusesTheGraceEndOfANodeWhoseDroneLinkDropped() throws Exception {
    silenceOnA = Duration.ofSeconds(90);
    Blinded run = blindedTurnOnA();
    Connection onA = run.onA();
    Page onC = run.onC();
    String turn = run.turn();
    onA.disconnect(); // A releases the drone's lease and waits its grace period (5 s)
    Connection onB = replayingOnB(turn);
    tokens(onB, turn, 0, 60);
    assertThat(endsTriedOnA.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("node A ends the turn at the close of its grace period").isEqualTo(turn);
    assertThat(stored(turn)).as("the turn in the store after A's end")
        .isEqualTo(TurnStatus.PROCESSING);
    tokens(onB, turn, 60, 100);
    end(onB, turn);
    assertThat(onC.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
    await("B's end stored", () -> stored(turn) == TurnStatus.FINISHED);
    assertThat(storedText(turn)).isEqualTo(expected(100));
  }

  @Test
  void aWorkOrderGoesOnceToTheDronesSocketOnItsNewNodeAndIsAcknowledgedThere()
      throws Exception {
    start(3);
    droneOnA();
    Page onA = page(A);
    String session = fx.watchedSession(onA);
    String droneId = droneId();
    Connection onB = droneToB(null);
    leasedTo(B, droneId);

    // A's page prompts: A still has the drone's socket, which the drone has left
    String turn = onA.submit(session, "hello");
    assertThat(ordersOnB.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("the work order on the drone's socket on B; on its socket on A: %s", ordersOnA)
        .isEqualTo(turn);
    assertThat(ordersOnA).as("work orders sent to the socket the drone left").isEmpty();
    await("node A drops the socket the drone left", () -> droppedByA);
    end(onB, turn);
    assertThat(onA.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(stored(turn)).isEqualTo(TurnStatus.FINISHED);
    assertThat(ordersOnB).as("the work order once").isEmpty();
    assertThat(ordersOnA).isEmpty();
  }

  @Test
  void aCancelAskedOnTheNodeThatLostTheDroneReachesTheDroneOnItsNewNode() throws Exception {
    silenceOnA = Duration.ofSeconds(90); // A would not end the turn for silence meanwhile
    start(3);
    Connection onA = droneOnA();
    Page pageOnA = page(A);
    Page onC = page(C);
    String session = fx.watchedSession(pageOnA);
    onC.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    String turn = turnOnA(onA, pageOnA, session);
    Connection onB = takenOverByB(onA, turn);

    pageOnA.request(Protocol.CANCEL_TURN, Map.of("turnId", turn));
    assertThat(cancelsOnB.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("the cancel on the drone's socket on B; on its socket on A: %s", cancelsOnA)
        .isEqualTo(turn);
    assertThat(cancelsOnA).as("cancels sent to the socket the drone left").isEmpty();
    onB.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 50, TurnStatus.CANCELLED, TurnStats.EMPTY, null, null)));
    assertThat(onC.completion(turn).get("status").asText()).isEqualTo("cancelled");
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
    await("the end stored", () -> stored(turn) == TurnStatus.CANCELLED);
  }

  @Test
  void aPageOnTheNodeThatLostTheDroneFollowsTheTurnThereAndItsApprovalReachesTheDrone()
      throws Exception {
    silenceOnA = Duration.ofSeconds(90); // A would not end the turn for silence meanwhile
    start(3);
    Connection onA = droneOnA();
    Page pageOnA = page(A);
    String session = fx.watchedSession(pageOnA);
    String turn = turnOnA(onA, pageOnA, session);
    Connection onB = takenOverByB(onA, turn);
    leasesOfA.thaw(); // A's next renewal is refused: it lets the turn go, which goes on at B

    tokens(onB, turn, 50, 80);
    onB.emitWithAck(Protocol.APPROVAL_REQUEST, Protocol.args(
        new ApprovalPayloads.ApprovalRequest(turn, "call-1", "run_command", "{}", "make test")),
        RuntimeFixture.WAIT).get(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    await("the call pending on A's page", () -> pageOnA.count(turn, Protocol.APPROVAL_PENDING)
        == 1);
    JsonNode reply = pageOnA.request(Protocol.ANSWER_APPROVAL, Map.of("turnId", turn,
        "callId", "call-1", "decision", "approved"));
    assertThat(reply.path("ok").asBoolean()).as("answer: %s", reply).isTrue();
    JsonNode toDrone = decidedOnB.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(toDrone).as("the decision on the drone's socket on B; on A: %s", decidedOnA)
        .isNotNull();
    assertThat(toDrone.path("approval").path("decision").asText()).isEqualTo("approved");
    assertThat(decidedOnA).as("decisions sent to the socket the drone left").isEmpty();

    tokens(onB, turn, 80, 100);
    onB.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 100, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")));
    assertThat(pageOnA.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(pageOnA.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
    assertThat(pageOnA.seqs(turn, Protocol.RESPONSE))
        .as("A's page: each token once, in order, the first 50 from A and the rest from B")
        .containsExactlyElementsOf(range(100));
    await("the end stored", () -> stored(turn) == TurnStatus.FINISHED);
    assertThat(storedText(turn)).isEqualTo(expected(100));
  }
}
