package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
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
import org.junit.jupiter.api.Test;

/**
 * Three servers on one store and one in-process cluster, each with its own transport: a raw
 * drone on node A, pages on nodes B and C. A prompt on C reaches the drone on A; every event
 * reaches B's pages once, in order, also a page that starts watching mid-turn; when A goes
 * away mid-turn, the drone reconnects to C, which takes the turn over, and B's pages go on
 * with nothing lost or twice.
 */
class ClusterRuntimeTest extends RuntimeTestBase {
  private final InProcessCluster hub = new InProcessCluster();
  private List<InMemoryTransport> transports;
  private List<GadgetServer> nodes;
  private final BlockingQueue<String> orders = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> orderPolicies = new LinkedBlockingQueue<>();
  private final BlockingQueue<JsonNode> resumes = new LinkedBlockingQueue<>();
  private Person ada;

  private void start() throws Exception {
    Nodes started = startNodes(hub, b -> b.droneGracePeriod(Duration.ofSeconds(3))
        .ackTimeout(Duration.ofSeconds(5)), "a", "b", "c");
    transports = started.transports();
    nodes = started.servers();
    ada = fx.person("ada");
  }

  /** A raw drone of ada on node {@code node}, running {@code activeTurn} (or none). */
  private Connection drone(int node, String activeTurn) {
    TransportClient raw = transports.get(node).client();
    fx.closeables.add(raw);
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", ada.droneToken())
        .put("workspaceId", "ws-1").put("hostname", "h").put("workspaceDir", "/nowhere");
    if (activeTurn != null) {
      auth.put("activeTurnId", activeTurn);
    }
    // the handlers are registered before it connects: the server may ask at once
    return raw.connect(Protocol.DRONE_NAMESPACE, () -> auth,
        new TransportClient.ClientListener() {}, c -> {
          c.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
            JsonNode order = args.get(0).get("workOrder");
            orderPolicies.add(order.path("approvalPolicy").asText() + " createTools="
                + order.path("createTools").asText("unset"));
            orders.add(order.get("chatTurn").get("_id").asText());
            ack.send(Protocol.args(new Payloads.WorkOrderAck(true, null)));
          });
          c.on(Protocol.RESUME_STREAM, (args, ack) -> resumes.add(args.get(0)));
        });
  }

  /** Once ada's drone is registered, {@code page} prompts; the drone gets the work order. */
  private String promptedTurn(Page page, String session) throws Exception {
    await("the drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = page.submit(session, "hello");
    assertThat(orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    return turn;
  }

  private Page page(int node) throws InterruptedException {
    Page p = new Page(transports.get(node).client(), ada.pageToken());
    fx.closeables.add(p);
    return p.connected();
  }

  private static ObjectNode token(String turn, long seq, String data) {
    return GadgetJson.mapper().createObjectNode().put("turnId", turn).put("seq", seq)
        .put("data", data);
  }

  /** The text of a page's response tokens of {@code turn}, each as it came. */
  private static String text(Page page, String turn) {
    StringBuilder sb = new StringBuilder();
    for (Page.Event e : page.eventsOf(turn)) {
      if (e.name().equals(Protocol.RESPONSE)) {
        sb.append(e.payload().get("data").asText());
      }
    }
    return sb.toString();
  }

  private static String expected(int from, int to) {
    StringBuilder sb = new StringBuilder();
    for (int i = from; i < to; i++) {
      sb.append("t").append(i).append(' ');
    }
    return sb.toString();
  }

  private static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }

  @Test
  void aPromptOnOneNodeReachesTheDroneOnAnotherAndEveryNodesPagesGetEachEventOnceInOrder()
      throws Exception {
    start();
    Connection drone = drone(0, null);
    Page onB = page(1);
    Page onC = page(2);
    String session = fx.watchedSession(onB);
    onC.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("the drone's lease", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    await("the drone listed as available on node C", () -> {
      try {
        return onC.request(Protocol.LIST_DRONES, Map.of()).path("drones").get(0).path("status")
            .asText().equals("available");
      } catch (Exception e) {
        return false;
      }
    });

    String turn = onC.submit(session, "hello");
    assertThat(orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    for (int i = 0; i < 300; i++) {
      drone.emit(Protocol.RESPONSE, List.of(token(turn, i, "t" + i + " ")));
      if (i == 150) {
        Page late = page(1); // starts watching mid-turn, on a node the turn does not run on
        late.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
        lateCheck = late;
      }
    }
    drone.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 300, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")));

    for (Page p : List.of(onB, onC)) {
      assertThat(p.completion(turn).get("status").asText()).isEqualTo("finished");
      assertThat(p.count(turn, Protocol.TURN_STARTED)).isEqualTo(1);
      assertThat(p.seqs(turn, Protocol.RESPONSE)).containsExactlyElementsOf(range(0, 300));
      assertThat(p.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
    }
    Page late = lateCheck;
    late.completion(turn);
    // its snapshot had the turn without blocks, live from before its first event
    assertThat(text(late, turn)).isEqualTo(expected(0, 300));
    assertThat(fx.store.findTurn(turn).map(ChatTurn::status)).contains(TurnStatus.FINISHED);
  }

  private volatile Page lateCheck;

  @Test
  void aCancelOnAnotherNodeReachesTheDroneAndTheChatIsNotDeletedMeanwhile() throws Exception {
    start();
    Connection drone = drone(0, null);
    BlockingQueue<String> cancels = new LinkedBlockingQueue<>();
    drone.on(Protocol.CANCEL_WORK_ORDER, (args, ack) -> {
      cancels.add(args.get(0).get("turnId").asText());
      if (ack != null) {
        ack.send(Protocol.args(Payloads.OkReply.success()));
      }
    });
    Page onB = page(1);
    String session = fx.watchedSession(onB);
    String turn = promptedTurn(onB, session);
    JsonNode refused = onB.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "again"));
    assertThat(refused.path("error").asText()).contains("already running");
    JsonNode kept = onB.request(Protocol.DELETE_SESSION, Map.of("sessionId", session));
    assertThat(kept.path("error").asText()).contains("the agent is still working in this chat");
    assertThat(fx.store.findSession(session)).isPresent();

    onB.request(Protocol.CANCEL_TURN, Map.of("turnId", turn));
    assertThat(cancels.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    drone.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 0, TurnStatus.CANCELLED, TurnStats.EMPTY, null, null)));
    assertThat(onB.completion(turn).get("status").asText()).isEqualTo("cancelled");
  }

  @Test
  void aPageOnAnotherNodeAnswersACallThatWaitsForApproval() throws Exception {
    start();
    Connection drone = drone(0, null);
    BlockingQueue<JsonNode> decided = new LinkedBlockingQueue<>();
    drone.on(Protocol.APPROVAL_DECIDED, (args, ack) -> decided.add(args.get(0)));
    Page onB = page(1);
    String session = fx.watchedSession(onB);
    String turn = promptedTurn(onB, session);
    drone.emitWithAck(Protocol.APPROVAL_REQUEST, Protocol.args(
        new dev.gadget.core.protocol.ApprovalPayloads.ApprovalRequest(turn, "call-1",
            "run_command", "{}", "make test")), RuntimeFixture.WAIT);
    await("the call pending on B", () -> onB.count(turn, Protocol.APPROVAL_PENDING) == 1);

    JsonNode reply = onB.request(Protocol.ANSWER_APPROVAL, Map.of("turnId", turn,
        "callId", "call-1", "decision", "approved"));
    assertThat(reply.path("ok").asBoolean()).as("answer: %s", reply).isTrue();
    JsonNode toDrone = decided.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(toDrone).as("the decision the drone got").isNotNull();
    assertThat(toDrone.path("approval").path("decision").asText()).isEqualTo("approved");
    await("the decision on B", () -> onB.count(turn, Protocol.APPROVAL_DECIDED) == 1);
    JsonNode again = onB.request(Protocol.ANSWER_APPROVAL, Map.of("turnId", turn,
        "callId", "call-1", "decision", "denied"));
    assertThat(again.path("error").asText()).contains("already decided");
  }

  @Test
  void anApprovalPolicySetOnOneNodeHoldsForTheTurnAnotherNodeRunsAndForEveryNodesPages()
      throws Exception {
    start();
    drone(0, null);
    Page onC = page(2);
    String session = fx.watchedSession(onC);
    JsonNode set = onC.request(Protocol.APPROVAL_POLICY,
        Map.of("sessionId", session, "policy", "commands", "createTools", false));
    assertThat(set.path("policy").asText()).as("set: %s", set).isEqualTo("commands");
    Page onB = page(1);
    JsonNode read = onB.request(Protocol.APPROVAL_POLICY, Map.of("sessionId", session));
    assertThat(read.path("policy").asText()).as("read on B: %s", read).isEqualTo("commands");
    assertThat(read.path("createTools").asText()).as("read on B: %s", read).isEqualTo("false");
    JsonNode snapshot = onB.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    assertThat(snapshot.path("approvals").path("policy").asText()).isEqualTo("commands");
    await("the drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());

    String turn = onB.submit(session, "hello");
    assertThat(orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    assertThat(orderPolicies.poll()).as("the settings of the work order node A sent")
        .isEqualTo("commands createTools=false");
  }

  @Test
  void workspaceRequestsForADroneOnAnotherNodeReachItThroughThatNode() throws Exception {
    start();
    Connection drone = drone(0, null);
    BlockingQueue<String> asked = new LinkedBlockingQueue<>();
    for (String event : List.of(Protocol.REQUEST_SESSION_LOCK, Protocol.REQUEST_WORKSPACE_MODE,
        Protocol.RELEASE_SESSION_LOCK)) {
      drone.on(event, (args, ack) -> {
        asked.add(event + " " + args.get(0).path("sessionId").asText(
            args.get(0).path("mode").asText()));
        ack.send(Protocol.args(Payloads.OkReply.success()));
      });
    }
    drone.on(Protocol.GET_WORKSPACE_STATE, (args, ack) -> ack.send(Protocol.args(
        new dev.gadget.core.protocol.WorkspacePayloads.WorkspaceStateReply(false,
            "nothing cloned yet", null))));
    Page onB = page(1);
    String session = fx.watchedSession(onB);
    await("the drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();

    JsonNode lock = onB.request(Protocol.REQUEST_SESSION_LOCK, Map.of("sessionId", session));
    assertThat(lock.path("droneId").asText()).as("lock: %s", lock).isEqualTo(droneId);
    assertThat(asked.poll()).isEqualTo(Protocol.REQUEST_SESSION_LOCK + " " + session);
    assertThat(fx.store.findSession(session).orElseThrow().workspaceId()).isEqualTo("ws-1");
    JsonNode mode = onB.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "user"));
    assertThat(mode.path("ok").asBoolean()).as("mode: %s", mode).isTrue();
    assertThat(asked.poll()).isEqualTo(Protocol.REQUEST_WORKSPACE_MODE + " user");
    JsonNode release = onB.request(Protocol.RELEASE_SESSION_LOCK, Map.of("droneId", droneId));
    assertThat(release.path("ok").asBoolean()).as("release: %s", release).isTrue();
    assertThat(asked.poll()).isEqualTo(Protocol.RELEASE_SESSION_LOCK + " ");
    assertThat(onB.request(Protocol.GET_WORKSPACE_STATE, Map.of("droneId", droneId))
        .path("error").asText()).isEqualTo("nothing cloned yet");

    Page bobOnC = new Page(transports.get(2).client(), fx.person("bob").pageToken());
    fx.closeables.add(bobOnC);
    assertThat(bobOnC.connected().request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "user")).path("error").asText())
        .isEqualTo("that drone is not connected");
    assertThat(asked).isEmpty();
  }

  /** The statuses or modes {@code page} was told of the drone, in order. */
  private static List<String> news(Page page, String event, String droneId) {
    return page.events.stream().filter(e -> e.name().equals(event)
        && e.payload().path("droneId").asText().equals(droneId))
        .map(e -> e.payload().path(event.equals(Protocol.DRONE_STATUS) ? "status" : "mode")
            .asText()).toList();
  }

  @Test
  void newsOfADroneReachTheUsersPagesOnEveryNodeOnce() throws Exception {
    start();
    Connection drone = drone(0, null);
    await("the drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();
    Page onA = page(0);
    Page onB = page(1);
    onA.request(Protocol.LIST_DRONES, Map.of()); // each node has taken its page in
    onB.request(Protocol.LIST_DRONES, Map.of());

    drone.emit(Protocol.DRONE_STATUS, Protocol.args(new Payloads.DroneStatusEvent(null,
        dev.gadget.core.model.DroneStatus.BUSY, null)));
    drone.emit(Protocol.WORKSPACE_MODE, Protocol.args(
        new dev.gadget.core.protocol.WorkspacePayloads.WorkspaceModeEvent(null,
            dev.gadget.core.model.WorkspaceMode.USER)));
    for (Page p : List.of(onA, onB)) {
      await("the news on " + p, () -> news(p, Protocol.WORKSPACE_MODE, droneId).size() == 1
          && news(p, Protocol.DRONE_STATUS, droneId).size() == 1);
    }
    drone.disconnect();
    for (Page p : List.of(onA, onB)) {
      await("the drone's going on " + p, () -> news(p, Protocol.DRONE_STATUS, droneId)
          .contains("offline"));
      assertThat(news(p, Protocol.DRONE_STATUS, droneId)).containsExactly("busy", "offline");
      assertThat(news(p, Protocol.WORKSPACE_MODE, droneId)).containsExactly("user");
    }
  }

  @Test
  void aCommitAskedOnAnotherNodeIsMadeByTheDroneThatMadeTheChanges() throws Exception {
    start();
    Connection drone = drone(0, null);
    BlockingQueue<JsonNode> commits = new LinkedBlockingQueue<>();
    drone.on(Protocol.COMMIT_CHANGES, (args, ack) -> {
      commits.add(args.get(0));
      ack.send(Protocol.args(new dev.gadget.core.protocol.ChangePayloads.ChangesReply(true, null,
          null, "abc1234", List.of(args.get(0).path("turnIds").get(0).asText()), "the message\n")));
    });
    Page onB = page(1);
    String session = fx.watchedSession(onB);
    String turn = promptedTurn(onB, session);
    dev.gadget.core.model.TurnDiff diff = new dev.gadget.core.model.TurnDiff(List.of(
        new dev.gadget.core.model.TurnDiff.FileChange("a.txt", "added", false, 1, 0)),
        "+a\n", false, null, null);
    drone.emit(Protocol.TURN_CHANGES, Protocol.args(
        new dev.gadget.core.protocol.ChangePayloads.TurnChanges(turn, 0, diff, null)));
    drone.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 1, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")));
    onB.completion(turn);

    JsonNode reply = onB.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session,
        "message", "the message"));
    assertThat(reply.path("commit").asText()).as("reply: %s", reply).isEqualTo("abc1234");
    assertThat(commits.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS)
        .path("turnIds").get(0).asText()).isEqualTo(turn);

    nodes.get(0).close(); // the drone's node is gone: asked again, the page is told in words
    JsonNode refused = onB.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", session,
        "message", "again"));
    assertThat(refused.path("error").asText()).isEqualTo(
        "the drone that made these changes is not connected");
  }

  @Test
  void aTurnWhoseNodeWentAndWhoseDroneNeverCameBackEndsInterruptedOnEveryPage()
      throws Exception {
    start();
    Connection drone = drone(0, null);
    Page onB = page(1);
    String session = fx.watchedSession(onB);
    String turn = promptedTurn(onB, session);
    drone.emit(Protocol.RESPONSE, List.of(token(turn, 0, "t0 ")));
    await("the token on B", () -> onB.seqs(turn, Protocol.RESPONSE).size() == 1);

    nodes.get(0).close(); // its drone never connects again
    JsonNode end = onB.completion(turn);
    assertThat(end.path("status").asText()).isEqualTo("interrupted");
    assertThat(end.path("error").asText()).contains("left the cluster");
    assertThat(onB.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
    assertThat(fx.store.findTurn(turn).map(ChatTurn::status)).contains(TurnStatus.INTERRUPTED);
  }

  @Test
  void whenTheDronesNodeGoesTheDroneReconnectsToAnotherWhichTakesTheTurnOver()
      throws Exception {
    start();
    Connection drone = drone(0, null);
    Page onB = page(1);
    String session = fx.watchedSession(onB);
    String turn = promptedTurn(onB, session);
    List<ObjectNode> sent = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      sent.add(token(turn, i, "t" + i + " "));
      drone.emit(Protocol.RESPONSE, List.of(sent.get(i)));
    }
    await("the first 100 tokens on B", () -> onB.seqs(turn, Protocol.RESPONSE).size() == 100);

    nodes.get(0).close(); // node A goes; its drone keeps the turn's events (its outbox)
    Connection again = drone(2, turn);
    JsonNode resume = resumes.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(resume).as("node C asks for the turn again").isNotNull();
    assertThat(resume.get("turnId").asText()).isEqualTo(turn);
    again.emit(Protocol.STREAM_REPLAY, Protocol.args(
        new ResumePayloads.StreamReplay(turn, 0, true)));
    for (ObjectNode e : sent) {
      again.emit(Protocol.RESPONSE, List.of(e));
    }
    for (int i = 100; i < 200; i++) {
      again.emit(Protocol.RESPONSE, List.of(token(turn, i, "t" + i + " ")));
    }
    again.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 200, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")));

    assertThat(onB.completion(turn).get("status").asText()).isEqualTo("finished");
    assertThat(onB.seqs(turn, Protocol.RESPONSE)).containsExactlyElementsOf(range(0, 200));
    assertThat(text(onB, turn)).isEqualTo(expected(0, 200));
    await("the end stored", () -> fx.store.findTurn(turn).map(ChatTurn::status)
        .orElseThrow() == TurnStatus.FINISHED);
    assertThat(fx.store.findTurn(turn).orElseThrow().blocks()).hasSize(1);
  }
}
