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
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
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

  /**
   * Seed 001 §7.3: {@code work-order.json} has the seed's fields from the moment the drone
   * accepts the work order (it is written before the acknowledgement), never the API key; its
   * status is {@code processing} while the turn runs and {@code completed} once it ended.
   */
  @Test
  void workOrderJsonHasTheSeedsFieldsOnceTheWorkOrderIsAccepted() throws Exception {
    bareServer();
    CountDownLatch answer = new CountDownLatch(1);
    GadgetDrone drone = drone(heldUntil(answer));
    Connection c = drones.poll(10, TimeUnit.SECONDS);
    Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    assertThat(send(c, order("t1", drone.workspaceId())).get("accepted").asBoolean()).isTrue();

    JsonNode cache = workOrderJson();
    assertThat(cache.get("turnId").asText()).isEqualTo("t1");
    assertThat(cache.get("chatSessionId").asText()).isEqualTo("s1");
    assertThat(cache.get("projectId").asText()).isEqualTo("p1");
    assertThat(cache.get("workOrderId").asText()).isEqualTo("w-t1");
    assertThat(Instant.parse(cache.get("receivedAt").asText())).isBetween(before, Instant.now());
    assertThat(cache.get("prompt").asText()).isEqualTo("go");
    assertThat(cache.get("status").asText()).isEqualTo("processing");
    assertThat(cache.path("error").isMissingNode() || cache.get("error").isNull()).isTrue();
    assertThat(Files.readString(tmp.resolve("ws/.gadget/work-order.json")))
        .doesNotContain(RuntimeFixture.API_KEY);

    answer.countDown();
    await("completed", () -> workOrderJsonStatus().equals("completed"));
    cache = workOrderJson();
    assertThat(cache.get("turnId").asText()).isEqualTo("t1");
    assertThat(cache.path("error").isMissingNode() || cache.get("error").isNull()).isTrue();
  }

  /**
   * Seed 001 §7.4: a drone that starts with a work order left by a crash asks the server
   * {@code requestCrashRecovery {workspaceId, turnId, chatSessionId}} and keeps the file until the
   * server answers; told to discard it, it deletes it.
   */
  @Test
  void aWorkOrderLeftByACrashIsAskedAboutAndKeptUntilTheServerAnswers() throws Exception {
    bareServer();
    GadgetDrone crashed = drone(heldUntil(new CountDownLatch(1)));
    Connection c = drones.poll(10, TimeUnit.SECONDS);
    assertThat(send(c, order("t1", crashed.workspaceId())).get("accepted").asBoolean()).isTrue();
    await("running", () -> crashed.activeTurnId().isPresent());
    crashed.abandon();

    GadgetDrone again = drone(ScriptedLlmClient.of());
    Connection c2 = drones.poll(10, TimeUnit.SECONDS);
    await("recovery asked", () -> heard.stream()
        .anyMatch(h -> h.startsWith(Protocol.REQUEST_CRASH_RECOVERY + " ")));
    String asked = heard.stream().filter(h -> h.startsWith(Protocol.REQUEST_CRASH_RECOVERY + " "))
        .findFirst().orElseThrow();
    JsonNode request = GadgetJson.mapper().readTree(asked.substring(asked.indexOf(' ') + 1));
    assertThat(request.get("workspaceId").asText()).isEqualTo(crashed.workspaceId());
    assertThat(request.get("turnId").asText()).isEqualTo("t1");
    assertThat(request.get("chatSessionId").asText()).isEqualTo("s1");
    assertThat(request.get("workOrderId").asText()).isEqualTo("w-t1");
    // not answered yet: the file stays, and the drone takes no other work meanwhile
    assertThat(workOrderJson().get("turnId").asText()).isEqualTo("t1");
    assertThat(workOrderJson().get("status").asText()).isEqualTo("processing");
    assertThat(send(c2, order("t2", again.workspaceId())).get("reason").asText())
        .isEqualTo("busy: recovering turn t1");

    c2.emit(Protocol.CRASH_RECOVERY_RESPONSE,
        Protocol.args(new Payloads.CrashRecoveryResponse("t1", "discard", null)));
    await("discarded", () -> !Files.exists(tmp.resolve("ws/.gadget/work-order.json")));
    await("free again", () -> again.activeTurnId().isEmpty());
  }

  /** A model that answers once {@code go} is counted down (or the wait's end). */
  private static ScriptedLlmClient heldUntil(CountDownLatch go) {
    return ScriptedLlmClient.builder().script(request -> {
      try {
        go.await(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return ScriptedLlmClient.reply().text("ok").build();
    }).build();
  }

  private String workOrderJsonStatus() {
    try {
      return workOrderJson().get("status").asText();
    } catch (Exception e) {
      return "";
    }
  }
}
