package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.drone.WorkspaceException;
import dev.gadget.core.drone.WorkspaceLock;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.InMemoryTransport;
import dev.gadget.core.transport.TransportServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A drone that is stopped (Ctrl-C, SIGTERM: {@link GadgetDrone#close()}) ends its turn cleanly,
 * and one drone owns a workspace at a time. The same over real processes and signals is
 * gadget-examples' DroneProcessTest.
 */
class DroneStopTest extends RuntimeTestBase {

  /** A reply that streams for minutes: a turn that is still running when the drone stops. */
  private static ScriptedLlmClient endless() {
    return ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("word ".repeat(20_000)).build())
        .reply(ScriptedLlmClient.reply().text("Done.").build())
        .tokenDelay(Duration.ofMillis(10)).build();
  }

  @Test
  void aStoppedDroneEndsItsTurnCancelledAtOnceAndItsNextStartRecoversNothing() throws Exception {
    fx = new RuntimeFixture(tmp);
    // A grace period far longer than the test waits: the end must not come from it.
    fx.server(b -> b.droneGracePeriod(Duration.ofMinutes(5)));
    Person ada = fx.person("ada");
    Path ws = tmp.resolve("ws");
    ScriptedLlmClient llm = endless();
    GadgetDrone drone = fx.drone(ada, ws, llm);
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "talk until stopped")).get("turnId").asText();
    await("streaming", () -> page.eventsOf(turn).size() > 5);
    assertThat(ws.resolve(".gadget/work-order.json")).exists();

    drone.close();

    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).isEqualTo("cancelled");
    assertThat(done.get("error").asText())
        .isEqualTo("the drone on test-host was stopped while it ran this turn");
    ChatTurn stored = fx.store.findTurn(turn).orElseThrow();
    assertThat(stored.status()).isEqualTo(TurnStatus.CANCELLED);
    assertThat(stored.blocks()).as("what streamed before the stop is kept").isNotEmpty();
    // The server has the end, so nothing is left for the next start to recover.
    assertThat(ws.resolve(".gadget/work-order.json")).doesNotExist();
    await("drone offline", () -> fx.store.listDrones(ada.user().id()).get(0).status()
        == DroneStatus.OFFLINE);

    GadgetDrone again = fx.drone(ada, ws, llm);
    await("available again", () -> fx.store.listDrones(ada.user().id()).get(0).status()
        == DroneStatus.AVAILABLE);
    assertThat(again.activeTurnId()).isEmpty();
    String next = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "and now?")).get("turnId").asText();
    assertThat(page.completion(next).get("status").asText()).isEqualTo("finished");
  }

  @Test
  void aStopThatTheServerMissesIsBoundedAndReportedAgainAtTheNextStartNotRecovered()
      throws Exception {
    fx = new RuntimeFixture(tmp);
    // A server that takes the work order and, at first, never acknowledges the turn's end.
    InMemoryTransport transport = new InMemoryTransport();
    TransportServer server = transport.server();
    BlockingQueue<Connection> drones = new LinkedBlockingQueue<>();
    BlockingQueue<JsonNode> ends = new LinkedBlockingQueue<>();
    BlockingQueue<JsonNode> recoveries = new LinkedBlockingQueue<>();
    AtomicBoolean answering = new AtomicBoolean();
    server.start(new ConnectionAcceptor() {
      @Override
      public Object authenticate(String namespace, JsonNode auth) {
        return "drone";
      }

      @Override
      public void onConnect(Connection c, Object principal) {
        c.on(Protocol.WORK_ORDER_COMPLETE, (args, ack) -> {
          ends.add(args.get(0));
          if (answering.get()) {
            ack.send(Protocol.args(Payloads.OkReply.success()));
          }
        });
        c.on(Protocol.REQUEST_CRASH_RECOVERY, (args, ack) -> recoveries.add(args.get(0)));
        drones.add(c);
      }

      @Override
      public void onDisconnect(Connection c, Object principal, String reason) {}
    });
    fx.closeables.add(server);
    Path ws = tmp.resolve("ws");
    GadgetDrone drone = GadgetDrone.builder().transport(transport.client()).token("t")
        .workspaceDir(ws).hostname("box").llmClients(p -> endless())
        .stopTimeout(Duration.ofMillis(300)).build();
    drone.start();
    fx.closeables.add(drone);
    Connection c = drones.poll(10, TimeUnit.SECONDS);
    WorkOrder order = new WorkOrder("w1",
        new WorkOrder.ProjectRef("p1", "Sample", "sample", fx.gitUrl), RuntimeFixture.PROVIDER,
        new WorkOrder.SessionRef("s1", "S", List.of()), new WorkOrder.TurnRef("t1", "build", "go"));
    assertThat(c.emitWithAck(Protocol.PROCESS_WORK_ORDER,
            Protocol.args(new Payloads.ProcessWorkOrder(order, 0, false)), Duration.ofSeconds(10))
        .get(10, TimeUnit.SECONDS).get(0).get("accepted").asBoolean()).isTrue();
    await("running", () -> drone.activeTurnId().isPresent());

    CompletableFuture<Void> stopped = CompletableFuture.runAsync(drone::close);
    stopped.get(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);

    JsonNode end = ends.poll(10, TimeUnit.SECONDS);
    assertThat(end.get("status").asText()).isEqualTo("cancelled");
    assertThat(end.get("error").asText()).contains("the drone on box was stopped");
    // Unacknowledged: the cache keeps the end, and the next start reports it again.
    assertThat(ws.resolve(".gadget/work-order.json")).exists();
    assertThat(Files.readString(ws.resolve(".gadget/work-order.json")))
        .contains("\"status\" : \"stopped\"");

    answering.set(true);
    GadgetDrone again = GadgetDrone.builder().transport(transport.client()).token("t")
        .workspaceDir(ws).hostname("box").llmClients(p -> endless()).build();
    again.start();
    fx.closeables.add(again);
    JsonNode reported = ends.poll(10, TimeUnit.SECONDS);
    assertThat(reported).as("the end, reported again").isNotNull();
    assertThat(reported.get("turnId").asText()).isEqualTo("t1");
    assertThat(reported.get("seq").asLong()).isEqualTo(end.get("seq").asLong());
    assertThat(reported.get("status").asText()).isEqualTo("cancelled");
    assertThat(reported.get("error").asText()).isEqualTo(end.get("error").asText());
    await("the cache removed once acknowledged",
        () -> !Files.exists(ws.resolve(".gadget/work-order.json")));
    assertThat(recoveries).as("no crash recovery was asked").isEmpty();
    assertThat(again.activeTurnId()).isEmpty();
  }

  @Test
  void aSecondDroneOnTheSameWorkspaceRefusesToStartAndNamesTheHolder() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    Path ws = tmp.resolve("ws");
    GadgetDrone first = fx.drone(ada, ws, endless());
    await("first registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());

    GadgetDrone second = GadgetDrone.builder().transport(fx.transport.client())
        .token(ada.droneToken()).workspaceDir(tmp.resolve("ws/../ws")).llmClients(p -> endless())
        .build();
    fx.closeables.add(second);
    assertThatThrownBy(second::start).isInstanceOf(WorkspaceException.class)
        .hasMessageContaining("is in use by another drone")
        .hasMessageContaining("pid " + ProcessHandle.current().pid());
    assertThatThrownBy(() -> WorkspaceLock.acquire(ws, "h", Clock.systemUTC()))
        .isInstanceOf(WorkspaceException.class);
    // The refused drone changed nothing: the first still runs, registered once.
    assertThat(fx.store.listDrones(ada.user().id())).hasSize(1);
    assertThat(first.activeTurnId()).isEmpty();

    first.close();
    GadgetDrone third = fx.drone(ada, ws, endless());
    assertThat(third.workspaceId()).isEqualTo(first.workspaceId());
    third.close();
    // The lock file stays, naming its last holder (read only now: while this JVM holds the
    // lock, opening the file again would drop it).
    assertThat(Files.readString(ws.resolve(".gadget/" + WorkspaceLock.FILE)))
        .contains("\"pid\":" + ProcessHandle.current().pid(), "\"hostname\":\"test-host\"");
  }
}
