package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.InMemoryTransport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drone's {@code .gadget/} files against a bare test server that never acknowledges a
 * turn's end: {@code work-order.json}'s status and error, {@code drone.log}, the work order's
 * {@code workspaceId}.
 */
class DroneFilesTest {
  @TempDir Path tmp;
  RuntimeFixture fx;
  final InMemoryTransport transport = new InMemoryTransport();
  BlockingQueue<Connection> drones;
  final List<String> heard = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  /** A server that takes any drone and records what it says, acknowledging nothing. */
  private void bareServer() throws Exception {
    fx = new RuntimeFixture(tmp);
    drones = fx.bareServer(transport, connection -> {
      for (String e : List.of(Protocol.WORK_ORDER_COMPLETE, Protocol.REQUEST_CRASH_RECOVERY)) {
        connection.on(e, (args, ack) -> heard.add(e + " " + args.get(0)));
      }
    });
  }

  private GadgetDrone drone(ScriptedLlmClient llm) {
    GadgetDrone d = GadgetDrone.builder().transport(transport.client()).token("gdt_droneToken1")
        .workspaceDir(tmp.resolve("ws")).llmClients(p -> llm).hostname("test-host")
        .ackTimeout(Duration.ofMillis(300)).build();
    d.start();
    fx.closeables.add(d);
    return d;
  }

  private WorkOrder order(String turnId, String workspaceId) {
    return new WorkOrder("w-" + turnId,
        new WorkOrder.ProjectRef("p1", "Sample", "sample", fx.gitUrl), RuntimeFixture.PROVIDER,
        new WorkOrder.SessionRef("s1", "S", List.of()),
        new WorkOrder.TurnRef(turnId, "build", "go"), workspaceId);
  }

  private static JsonNode send(Connection c, WorkOrder order) throws Exception {
    return c.emitWithAck(Protocol.PROCESS_WORK_ORDER,
        Protocol.args(new Payloads.ProcessWorkOrder(order, 0, false)), Duration.ofSeconds(10))
        .get(10, TimeUnit.SECONDS).get(0);
  }

  private JsonNode workOrderJson() throws Exception {
    return GadgetJson.mapper().readTree(tmp.resolve("ws/.gadget/work-order.json").toFile());
  }

  @Test
  void aFailedTurnLeavesWorkOrderJsonAtErrorWithItsMessageAndNoSecretAnywhere()
      throws Exception {
    bareServer();
    ScriptedLlmClient llm = ScriptedLlmClient.of(ScriptedLlmClient.reply()
        .fail("the provider refused the key " + RuntimeFixture.API_KEY).build());
    GadgetDrone drone = drone(llm);
    Connection c = drones.poll(10, TimeUnit.SECONDS);
    assertThat(send(c, order("t1", drone.workspaceId())).get("accepted").asBoolean()).isTrue();
    assertThat(workOrderJson().get("status").asText()).isIn("processing", "error");

    await("the turn's end reported", () -> heard.stream()
        .anyMatch(h -> h.startsWith(Protocol.WORK_ORDER_COMPLETE)));
    JsonNode cache = workOrderJson();
    assertThat(cache.get("status").asText()).isEqualTo("error");
    assertThat(cache.get("error").asText()).contains("the provider refused the key [secret]");
    assertThat(heard).allSatisfy(h -> assertThat(h).doesNotContain(RuntimeFixture.API_KEY));

    Path log = tmp.resolve("ws/.gadget/logs/drone.log");
    await("logged", () -> Files.exists(log) && read(log).contains("turn t1 ended error"));
    assertThat(read(log)).contains("drone started on test-host", "connected to the server",
        "running turn t1", "[secret]");
    assertThat(RuntimeFixture.gadgetFiles(tmp.resolve("ws")))
        .doesNotContain(RuntimeFixture.API_KEY).doesNotContain("gdt_droneToken1");

    // Restarted before the server acknowledged that end: it reports the same end again, and
    // does not ask for crash recovery (which could run the turn a second time).
    drone.abandon();
    heard.clear();
    GadgetDrone again = drone(ScriptedLlmClient.of());
    await("the end reported again", () -> !heard.isEmpty());
    assertThat(heard.get(0)).startsWith(Protocol.WORK_ORDER_COMPLETE)
        .contains("\"status\":\"error\"").contains("the provider refused the key [secret]");
    assertThat(heard).noneMatch(h -> h.startsWith(Protocol.REQUEST_CRASH_RECOVERY));
    assertThat(again.activeTurnId()).isEmpty();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      return "";
    }
  }

  @Test
  void aWorkOrderCarriesItsWorkspaceIdAndAnotherWorkspacesIsRefused() throws Exception {
    bareServer();
    GadgetDrone drone = drone(ScriptedLlmClient.of(ScriptedLlmClient.reply().text("ok").build()));
    Connection c = drones.poll(10, TimeUnit.SECONDS);
    JsonNode refused = send(c, order("t1", "00000000-0000-4000-8000-000000000000"));
    assertThat(refused.get("accepted").asBoolean()).isFalse();
    assertThat(refused.get("reason").asText()).isEqualTo("this work order is for workspace "
        + "00000000-0000-4000-8000-000000000000, not this drone's " + drone.workspaceId());
    assertThat(tmp.resolve("ws/.gadget/work-order.json")).doesNotExist();

    assertThat(send(c, order("t2", drone.workspaceId())).get("accepted").asBoolean()).isTrue();
    await("completed", () -> Files.exists(tmp.resolve("ws/.gadget/work-order.json"))
        && workOrderJsonStatus().equals("completed"));
    assertThat(workOrderJson().get("workOrder").get("workspaceId").asText())
        .isEqualTo(drone.workspaceId());
  }

  private String workOrderJsonStatus() {
    try {
      return workOrderJson().get("status").asText();
    } catch (Exception e) {
      return "";
    }
  }
}
