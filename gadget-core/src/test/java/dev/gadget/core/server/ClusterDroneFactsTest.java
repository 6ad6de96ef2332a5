package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.InMemoryTransport;
import dev.gadget.core.transport.TransportClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What another node says of the drones it holds ({@code listDrones}' {@code toolCount} and
 * {@code mode}, {@code /agent}'s {@code tool_count}), when one of the holding nodes does not
 * answer in time: its drone is left out of the counts, the rest is counted, and neither request
 * fails (docs/CLUSTER.md, "Tools and modes of another node's drones").
 */
class ClusterDroneFactsTest extends RuntimeTestBase {
  private static final int TOOLS = 4;
  private final InProcessCluster hub = new InProcessCluster();

  @Test
  void aNodeThatDoesNotAnswerInTimeLeavesItsDroneOutAndTheRestIsCounted() throws Exception {
    List<InMemoryTransport> transports = startNodes(hub, b -> b, "a", "b").transports();
    RuntimeFixture.Person ada = fx.person("ada");
    TransportClient raw = transports.get(0).client();
    fx.closeables.add(raw);
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", ada.droneToken())
        .put("workspaceId", "ws-a").put("hostname", "h").put("workspaceDir", "/nowhere");
    Connection drone = raw.connect(Protocol.DRONE_NAMESPACE, () -> auth,
        new TransportClient.ClientListener() {});
    List<Payloads.ToolInfo> tools = new ArrayList<>();
    for (int k = 0; k < TOOLS; k++) {
      tools.add(new Payloads.ToolInfo("tool_" + k, "", null));
    }
    Page onA = new Page(transports.get(0).client(), ada.pageToken());
    fx.closeables.add(onA);
    onA.connected();
    await("the drone on node A", () -> drones(onA).size() == 1);
    drone.emit(Protocol.DRONE_TOOLS, Protocol.args(new Payloads.DroneTools(tools, null)));
    await("node A knowing its drone's tools", () -> drones(onA).stream()
        .anyMatch(d -> d.path("toolCount").asInt() == TOOLS));

    // a third node that holds a drone of ada and answers no mail until the test ends
    CountDownLatch release = new CountDownLatch(1);
    fx.closeables.add(release::countDown);
    List<String> askedOfSilent = new CopyOnWriteArrayList<>();
    Cluster silent = hub.join("silent");
    silent.receiveMail((from, kind, body) -> {
      askedOfSilent.add(kind);
      release.await(30, TimeUnit.SECONDS);
      return "{\"drones\":[]}";
    });
    Instant now = Instant.now();
    fx.store.saveDrone(new DroneRegistration("silent-drone", ada.user().id(), "ws-silent", "h",
        "/nowhere", DroneStatus.AVAILABLE, now, now));
    silent.acquire("silent-drone", Duration.ofMinutes(1));

    Page onB = new Page(transports.get(1).client(), ada.pageToken());
    fx.closeables.add(onB);
    onB.connected();
    List<JsonNode> listed = drones(onB);
    assertThat(askedOfSilent).as("the silent node was asked").contains("droneFacts");
    assertThat(listed).hasSize(2);
    for (JsonNode d : listed) {
      if (d.path("_id").asText().equals("silent-drone")) {
        assertThat(d.has("toolCount")).as("the silent node's drone: %s", d).isFalse();
        assertThat(d.path("status").asText()).isEqualTo("available");
      } else {
        assertThat(d.path("toolCount").asInt(-1)).as("node A's drone: %s", d).isEqualTo(TOOLS);
        assertThat(d.path("mode").asText()).isEqualTo("idle");
      }
    }

    List<String> agent = new CopyOnWriteArrayList<>();
    TransportClient agentRaw = transports.get(1).client();
    fx.closeables.add(agentRaw);
    ObjectNode agentAuth = GadgetJson.mapper().createObjectNode().put("token", ada.pageToken());
    agentRaw.connect(Protocol.AGENT_NAMESPACE, () -> agentAuth,
        new TransportClient.ClientListener() {},
        conn -> conn.on(Protocol.TOOL_COUNT, (args, ack) -> agent.add(args.get(0).toString())));
    await("tool_count on node B", () -> !agent.isEmpty());
    assertThat(agent).containsExactly("{\"count\":" + TOOLS + "}");
  }

  private static List<JsonNode> drones(Page page) {
    List<JsonNode> out = new ArrayList<>();
    try {
      page.request(Protocol.LIST_DRONES, Map.of()).get("drones").forEach(out::add);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    return out;
  }
}
