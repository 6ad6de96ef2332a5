package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Seed 004's face ({@code /agent}, docs/PROTOCOL-AGENT.md) across nodes on a real redis-server:
 * a client on node B, whose user's drone is on node A, gets its query run there and every
 * {@code agent_event} of the turn, in order, once: exactly what a client on the drone's node
 * gets for the same turn.
 */
class AgentAcrossNodesTest extends RedisNodesTestBase {
  private static final int TOOLS = 5;
  private static final int TOKENS = 100;
  private static final int TOOLS_OFFERED = 7;

  /** A seed-004 client of ada on {@code node} that sent its query. */
  private List<String> client(int node) {
    List<String> log = new CopyOnWriteArrayList<>();
    query(connect(node, log), log, node);
    return log;
  }

  /** A seed-004 client of ada on {@code node}: every event it receives, as "name payload". */
  private Connection connect(int node, List<String> log) {
    TransportClient raw = transports.get(node).client();
    fx.closeables.add(raw);
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", ada.pageToken());
    Connection c = raw.connect(Protocol.AGENT_NAMESPACE, () -> auth,
        new TransportClient.ClientListener() {},
        conn -> {
          for (String e : List.of(Protocol.CONNECTED, Protocol.ERROR, Protocol.AGENT_EVENT,
              Protocol.QUERY_COMPLETE, Protocol.TOOL_COUNT)) {
            conn.on(e, (args, ack) -> log.add(e + " " + args.get(0)));
          }
        });
    await("the client on node " + node, () -> log.stream().anyMatch(
        l -> l.startsWith(Protocol.CONNECTED)));
    return c;
  }

  private static void query(Connection c, List<String> log, int node) {
    log.add(Protocol.QUERY + " sent"); // the client's own mark: what follows is the query's
    c.emit(Protocol.QUERY, Protocol.args(Map.of("prompt", "Read the README",
        "session_id", "agent-" + node)));
  }

  /** The drone runs the turn: {@link #TOOLS} tools started and done, a reply in tokens, the end. */
  private static void play(Connection drone, String turn) throws Exception {
    long seq = 0;
    for (int k = 0; k < TOOLS; k++) {
      String args = "{\"path\":\"part-" + k + ".md\"}";
      drone.emit(Protocol.TOOL_STARTED, Protocol.args(
          new Payloads.ToolStarted(turn, seq++, "c" + k, "read_file", args)));
      drone.emit(Protocol.TOOL_CALL, Protocol.args(new Payloads.ToolCallEvent(turn, seq++,
          new ToolCall("c" + k, "read_file", args, "# part " + k, null, 3L, null))));
    }
    for (int i = 0; i < TOKENS; i++) {
      drone.emit(Protocol.RESPONSE, Protocol.args(
          new Payloads.TextEvent(turn, seq++, "w" + i + " ", null, null)));
    }
    drone.emitWithAck(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
            turn, seq, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")), RuntimeFixture.WAIT)
        .get(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * What the client on {@code node} was told of its query {@code turn}: its agent events and its
   * completion, in order, with the turn's id and the session's name made the same for all.
   */
  private static List<String> told(List<String> log, String turn, int node) {
    return log.stream().filter(l -> l.startsWith(Protocol.AGENT_EVENT + " ")
        || l.startsWith(Protocol.QUERY_COMPLETE + " ") || l.startsWith(Protocol.ERROR + " "))
        .map(l -> l.replace(turn, "TURN").replace("agent-" + node, "SESSION")).toList();
  }

  private String turnOf(List<String> log) throws InterruptedException {
    String turn = orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertThat(turn).as("the work order; the client heard: %s", log).isNotNull();
    return turn;
  }

  @Test
  void aClientOnAnotherNodeThanTheDroneGetsEveryAgentEventOfItsTurnOnceInOrder()
      throws Exception {
    start(2);
    Connection drone = drone(0);
    fx.sampleProject(page(0)); // the project /agent's sessions are made in
    awaitDrones(1);

    List<String> onA = client(0); // on the drone's node: the reference
    String first = turnOf(onA);
    play(drone, first);
    await("node A's query_complete", () -> onA.stream()
        .anyMatch(l -> l.startsWith(Protocol.QUERY_COMPLETE)));

    List<String> onB = client(1);
    String second = turnOf(onB);
    play(drone, second);
    await("node B's query_complete", () -> onB.stream()
        .anyMatch(l -> l.startsWith(Protocol.QUERY_COMPLETE)));

    List<String> reference = told(onA, first, 0);
    assertThat(reference).as("node A's client")
        .filteredOn(l -> l.contains("execution_complete")).hasSize(TOOLS);
    assertThat(told(onB, second, 1)).as("node B's client, against node A's")
        .containsExactlyElementsOf(reference);
    assertThat(onB.stream().filter(l -> l.startsWith(Protocol.QUERY_COMPLETE)).count())
        .isEqualTo(1);
  }

  /**
   * The drone on node A offers {@link #TOOLS_OFFERED} tools (one named twice): a seed-004 client
   * on node B is told {@code tool_count} of them when it connects and after its query, with the
   * drone's {@code orphans_cleaned}, and a page on B lists the drone with that {@code toolCount}
   * and its mode, as node A knows them.
   */
  @Test
  void toolCountAndTheDroneListCountTheToolsOfADroneOnAnotherNode() throws Exception {
    start(2);
    Connection drone = drone(0);
    Page onA = page(0);
    fx.sampleProject(onA);
    awaitDrones(1);
    List<Payloads.ToolInfo> tools = new ArrayList<>();
    for (int k = 0; k < TOOLS_OFFERED; k++) {
      tools.add(new Payloads.ToolInfo("tool_" + k, "tool " + k, null));
    }
    tools.add(new Payloads.ToolInfo("tool_0", "the same name again", null)); // counted once
    drone.emit(Protocol.DRONE_TOOLS, Protocol.args(new Payloads.DroneTools(tools, 2)));
    await("node A knowing the drone's tools", () -> toolCounts(onA).equals(
        List.of(TOOLS_OFFERED)));

    List<String> onB = new CopyOnWriteArrayList<>();
    Connection client = connect(1, onB);
    await("tool_count on node B", () -> !counts(onB).isEmpty());
    assertThat(counts(onB)).as("node B's client: %s", onB).containsExactly(TOOLS_OFFERED);
    await("orphans_cleaned on node B", () -> onB.stream().anyMatch(
        l -> l.contains("orphans_cleaned") && l.contains("\"count\":2")));

    Page pageOnB = page(1);
    JsonNode listed = pageOnB.request(Protocol.LIST_DRONES, Map.of()).get("drones");
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).path("toolCount").asInt(-1)).as("B's drone list: %s", listed)
        .isEqualTo(TOOLS_OFFERED);
    assertThat(listed.get(0).path("mode").asText()).isEqualTo("idle");
    assertThat(listed.get(0).path("status").asText()).isEqualTo("available");

    query(client, onB, 1);
    play(drone, turnOf(onB));
    await("tool_count after node B's query_complete", () -> {
      int done = indexOf(onB, Protocol.QUERY_COMPLETE);
      return done >= 0 && onB.subList(done, onB.size()).stream()
          .anyMatch(l -> l.startsWith(Protocol.TOOL_COUNT + " "));
    });
    assertThat(counts(onB)).as("node B's client: %s", onB)
        .containsExactly(TOOLS_OFFERED, TOOLS_OFFERED);
  }

  private static List<Integer> toolCounts(Page page) {
    List<Integer> out = new ArrayList<>();
    try {
      page.request(Protocol.LIST_DRONES, Map.of()).get("drones")
          .forEach(d -> out.add(d.path("toolCount").asInt(-1)));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    return out;
  }

  private static List<Integer> counts(List<String> log) {
    return log.stream().filter(l -> l.startsWith(Protocol.TOOL_COUNT + " "))
        .map(l -> readCount(l.substring(Protocol.TOOL_COUNT.length() + 1))).toList();
  }

  private static int readCount(String json) {
    try {
      return GadgetJson.mapper().readTree(json).path("count").asInt(-1);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private static int indexOf(List<String> log, String event) {
    for (int i = 0; i < log.size(); i++) {
      if (log.get(i).startsWith(event + " ")) {
        return i;
      }
    }
    return -1;
  }
}
