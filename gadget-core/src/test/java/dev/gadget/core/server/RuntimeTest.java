package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The server and the drone together over the in-memory transport, with real threads, real git
 * and scripted LLM replies: issue 5's scenarios.
 */
class RuntimeTest extends ChatRuntimeTestBase {

  @Test
  void aPromptRoundTripIsPersistedBlockByBlock() throws Exception {
    AtomicInteger appends = new AtomicInteger();
    AtomicInteger finals = new AtomicInteger();
    fx = new RuntimeFixture(tmp, counting(new InMemoryChatStore(), appends, finals));
    fx.server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.of(readReadme(),
        answer("The README says hello from the sample project."));
    Path ws = tmp.resolve("ws");
    GadgetDrone drone = fx.drone(ada, ws, llm);
    Page page = fx.page(ada.pageToken()).connected();
    String session = session(page);
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("drone registered", () -> fx.store.listDrones(ada.user().id()).size() == 1);

    String turnId = submit(page, session, "What does the README say?");
    JsonNode done = page.completion(turnId);
    assertThat(done.get("status").asText()).isEqualTo("finished");

    ChatTurn stored = fx.store.findTurn(turnId).orElseThrow();
    assertThat(stored.status()).isEqualTo(TurnStatus.FINISHED);
    assertThat(describe(stored)).containsExactly(
        "thinking:I should look at the README first.",
        "responding:Let me read it.",
        "tool:read_file",
        "thinking:Now I know.",
        "responding:The README says hello from the sample project.");
    TurnBlock.Tool tool = (TurnBlock.Tool) stored.blocks().get(2);
    assertThat(tool.content().response()).contains("hello from the sample project");
    assertThat(stored.toolCalls()).hasSize(1);
    assertThat(stored.droneId()).isNotNull();
    // one write per block and one to finish, never one per token
    assertThat(appends.get()).isEqualTo(5);
    assertThat(finals.get()).isEqualTo(1);
    // the page saw every token and assembles the same blocks
    assertThat(assemble(null, turnId, page.eventsOf(turnId))).isEqualTo(describe(stored));
    assertThat(page.eventsOf(turnId).get(0).name()).isEqualTo(Protocol.TURN_STARTED);
    // the page hears its drone go busy with the turn, then available again
    await("drone status to the page", () -> page.events.stream()
        .filter(e -> e.name().equals(Protocol.DRONE_STATUS))
        .map(e -> e.payload().get("status").asText()).toList()
        .containsAll(List.of("busy", "available")));

    // the drone cloned the project, recorded it, and cleared its work order cache
    assertThat(ws.resolve("sample/README.md")).exists();
    assertThat(ws.resolve(".gadget/workspace.json")).exists();
    await("cache removed", () -> !Files.exists(ws.resolve(".gadget/work-order.json")));
    assertThat(drone.workspace().data().projects()).extracting(p -> p.slug())
        .containsExactly("sample");
    assertThat(RuntimeFixture.gadgetFiles(ws)).doesNotContain(RuntimeFixture.API_KEY);
    // the model got the system prompt first and the user's prompt last
    LlmRequest first = llm.requests().get(0);
    assertThat(first.messages().get(0).role()).isEqualTo(Role.SYSTEM);
    assertThat(first.messages().get(first.messages().size() - 1).content())
        .isEqualTo("What does the README say?");
    assertThat(llm.remaining()).isZero();
  }

  @Test
  void theSecondTurnCarriesTheFirstAsContext() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.of(answer("First answer."), answer("Second."));
    Chat chat = chat(ada, tmp.resolve("ws"), llm);
    Page page = chat.page();
    String session = chat.session();
    page.completion(submit(page, session, "one"));
    String t2 = submit(page, session, "two");
    assertThat(page.completion(t2).get("status").asText()).isEqualTo("finished");
    List<LlmMessage> messages = llm.requests().get(1).messages();
    assertThat(messages).extracting(LlmMessage::role)
        .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER);
    // the reasoning goes apart: each client sends it as its provider takes it (seed 002)
    assertThat(messages.get(2).content()).isEqualTo("First answer.");
    assertThat(messages.get(2).thinking()).isEqualTo("Now I know.");
    assertThat(fx.store.findTurn(t2).orElseThrow().seq()).isEqualTo(1);
  }

  @Test
  void twoUsersAreIsolated() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    Person bob = fx.person("bob");
    ScriptedLlmClient adaLlm = ScriptedLlmClient.of(answer("for ada"));
    ScriptedLlmClient bobLlm = ScriptedLlmClient.of();
    fx.drone(ada, tmp.resolve("ada-ws"), adaLlm);
    fx.drone(bob, tmp.resolve("bob-ws"), bobLlm);
    Page adaPage = fx.page(ada.pageToken()).connected();
    Page bobPage = fx.page(bob.pageToken()).connected();
    String adaSession = session(adaPage);
    adaPage.request(Protocol.WATCH_SESSION, Map.of("sessionId", adaSession));
    await("drones", () -> fx.store.listDrones(ada.user().id()).size() == 1
        && fx.store.listDrones(bob.user().id()).size() == 1);

    assertThat(bobPage.request(Protocol.WATCH_SESSION, Map.of("sessionId", adaSession))
        .get("error").asText()).isEqualTo("chat session not found");
    assertThat(bobPage.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", adaSession, "prompt", "steal")).get("error").asText())
        .isEqualTo("chat session not found");
    assertThat(bobPage.request(Protocol.LIST_PROJECTS, Map.of()).get("projects")).isEmpty();
    assertThat(bobPage.request(Protocol.LIST_DRONES, Map.of()).get("drones")).hasSize(1);

    String turn = submit(adaPage, adaSession, "hi");
    adaPage.completion(turn);
    assertThat(bobPage.request(Protocol.CANCEL_TURN, Map.of("turnId", turn)).get("error")
        .asText()).isEqualTo("turn not found");
    assertThat(adaLlm.requests()).hasSize(1);
    assertThat(bobLlm.requests()).isEmpty();
    // bob's page hears only about bob's own drone, never about ada's turn or drone
    String bobDrone = fx.store.listDrones(bob.user().id()).get(0).id();
    assertThat(bobPage.events).allSatisfy(e -> {
      assertThat(e.name()).isIn(Protocol.DRONE_STATUS, Protocol.WORKSPACE_MODE);
      assertThat(e.payload().get("droneId").asText()).isEqualTo(bobDrone);
    });
    assertThat(tmp.resolve("bob-ws/sample")).doesNotExist();
  }

  @Test
  void refusesMissingWrongAndWrongKindTokens() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    String[][] cases = {
        {null, "missing token"},
        {"gdt_nope", "invalid token"},
        {"not-even-a-token", "invalid token"},
        {ada.droneToken(), "this is a drone token; it cannot connect here"}};
    for (String[] c : cases) {
      Page page = fx.page(c[0]);
      assertThat(page.lifecycle.poll(10, java.util.concurrent.TimeUnit.SECONDS))
          .isEqualTo("refused");
      assertThat(page.refused.getMessage()).isEqualTo(c[1]);
    }

    // a drone with a user token is refused too, and the server keeps serving
    TransportClient raw = fx.transport.client();
    fx.closeables.add(raw);
    java.util.concurrent.BlockingQueue<String> result =
        new java.util.concurrent.LinkedBlockingQueue<>();
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", ada.pageToken())
        .put("workspaceId", "w");
    raw.connect(Protocol.DRONE_NAMESPACE, () -> auth, new TransportClient.ClientListener() {
      @Override
      public void onConnectError(Connection c, dev.gadget.core.transport.TransportException e) {
        result.add(e.getMessage());
      }
    });
    assertThat(result.poll(10, java.util.concurrent.TimeUnit.SECONDS))
        .isEqualTo("this is a user token; it cannot connect here");
    fx.page(ada.pageToken()).connected();
  }

  @Test
  void aBusyDroneRefusesAndTheServerSaysSo() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("slow ".repeat(200)).build())
        .tokenDelay(Duration.ofMillis(20)).build();
    fx.drone(ada, tmp.resolve("ws"), llm);
    Page page = fx.page(ada.pageToken()).connected();
    String s1 = session(page);
    String s2 = page.request(Protocol.CREATE_SESSION, Map.of("projectId",
        fx.store.findSession(s1).orElseThrow().projectId(), "name", "Other"))
        .get("session").get("_id").asText();
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String running = submit(page, s1, "take your time");
    assertThat(page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", s1, "prompt", "again"))
        .get("error").asText()).isEqualTo("a turn is already running in this chat session");
    assertThat(page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", s2, "prompt", "other"))
        .get("error").asText()).isEqualTo("every drone is busy");
    page.request(Protocol.CANCEL_TURN, Map.of("turnId", running));
  }

  @Test
  void theDroneItselfRefusesASecondWorkOrder() throws Exception {
    fixture();
    // A bare test server on its own transport sends the drone two work orders.
    var transport = new dev.gadget.core.transport.InMemoryTransport();
    java.util.concurrent.BlockingQueue<Connection> drones = fx.bareServer(transport, c -> { });
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("slow ".repeat(200)).build())
        .tokenDelay(Duration.ofMillis(20)).build();
    GadgetDrone drone = GadgetDrone.builder().transport(transport.client()).token("t")
        .workspaceDir(tmp.resolve("ws")).llmClients(p -> llm).build();
    drone.start();
    fx.closeables.add(drone);
    Connection c = drones.poll(10, java.util.concurrent.TimeUnit.SECONDS);
    var order = new dev.gadget.core.model.WorkOrder("w1",
        new dev.gadget.core.model.WorkOrder.ProjectRef("p1", "Sample", "sample", fx.gitUrl),
        RuntimeFixture.PROVIDER,
        new dev.gadget.core.model.WorkOrder.SessionRef("s1", "S", List.of()),
        new dev.gadget.core.model.WorkOrder.TurnRef("t1", "build", "go"));
    JsonNode first = c.emitWithAck(Protocol.PROCESS_WORK_ORDER,
        Protocol.args(new Payloads.ProcessWorkOrder(order, 0, false)), Duration.ofSeconds(10))
        .get().get(0);
    assertThat(first.get("accepted").asBoolean()).isTrue();
    var second = new dev.gadget.core.model.WorkOrder("w2", order.project(), order.provider(),
        order.chatSession(), new dev.gadget.core.model.WorkOrder.TurnRef("t2", "build", "go"));
    JsonNode refused = c.emitWithAck(Protocol.PROCESS_WORK_ORDER,
        Protocol.args(new Payloads.ProcessWorkOrder(second, 0, false)), Duration.ofSeconds(10))
        .get().get(0);
    assertThat(refused.get("accepted").asBoolean()).isFalse();
    assertThat(refused.get("reason").asText()).startsWith("busy");
    // the cache holds the running order, without the API key
    Path cache = tmp.resolve("ws/.gadget/work-order.json");
    assertThat(cache).exists();
    assertThat(Files.readString(cache)).contains("\"turnId\" : \"t1\"")
        .doesNotContain(RuntimeFixture.API_KEY);
    assertThat(drone.activeTurnId()).contains("t1");
  }

  @Test
  void badPayloadsGetAClearErrorAndTheConnectionGoesOn() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    Page page = fx.page(ada.pageToken()).connected();
    java.util.function.Function<List<JsonNode>, JsonNode> send = args -> {
      try {
        return page.connection.emitWithAck(Protocol.SUBMIT_PROMPT, args, Duration.ofSeconds(10))
            .get(10, java.util.concurrent.TimeUnit.SECONDS).get(0);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    };
    var json = GadgetJson.mapper().getNodeFactory();
    assertThat(send.apply(List.of()).get("error").asText()).startsWith("bad submitPrompt payload");
    assertThat(send.apply(List.of(json.textNode("not an object"))).get("error").asText())
        .startsWith("bad submitPrompt payload");
    assertThat(send.apply(List.of(json.objectNode().put("sessionId", 42)
        .set("prompt", json.arrayNode()))).get("error").asText())
        .startsWith("bad submitPrompt payload");
    assertThat(send.apply(List.of(json.objectNode().put("sessionId", "nope").put("prompt", "x")))
        .get("error").asText()).isEqualTo("chat session not found");
    page.connection.emit("noSuchEvent", List.of(json.objectNode()));
    assertThat(page.request(Protocol.LIST_PROJECTS, Map.of()).get("projects")).isEmpty();
  }

  @Test
  void aTurnThatCannotStartEndsAsAnErrorInsteadOfHanging() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    dev.gadget.core.agent.Tool tool = dev.gadget.core.agent.tools.CodingTools.all().get(0);
    GadgetDrone drone = GadgetDrone.builder().transport(fx.transport.client())
        .token(ada.droneToken()).workspaceDir(tmp.resolve("ws"))
        .llmClients(p -> ScriptedLlmClient.of())
        .tools(List.of(tool, tool)) // two tools of one name: the loop refuses to build
        .heartbeatInterval(Duration.ofMillis(100)).build();
    drone.start();
    fx.closeables.add(drone);
    Page page = fx.page(ada.pageToken()).connected();
    String session = session(page);
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = submit(page, session, "go");
    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).isEqualTo("error");
    assertThat(done.get("error").asText()).contains("two tools are named");
    await("drone free", () -> drone.activeTurnId().isEmpty());
  }
}
