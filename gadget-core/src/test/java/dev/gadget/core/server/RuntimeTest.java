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
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The server and the drone together over the in-memory transport, with real threads, real git
 * and scripted LLM replies: issue 5's scenarios.
 */
class RuntimeTest extends RuntimeTestBase {

  private RuntimeFixture fixture() throws Exception {
    fx = new RuntimeFixture(tmp);
    return fx;
  }

  private static ScriptedLlmClient.Reply readReadme() {
    return ScriptedLlmClient.reply().thinking("I should look at the README first.")
        .text("Let me read it.").toolCall("read_file", "{\"path\":\"README.md\"}").build();
  }

  private static ScriptedLlmClient.Reply answer(String text) {
    return ScriptedLlmClient.reply().thinking("Now I know.").text(text).build();
  }

  /** A session of {@code p}'s on the sample project; returns its id. */
  private String session(Page page) throws Exception {
    JsonNode project = fx.sampleProject(page);
    return page.request(Protocol.CREATE_SESSION,
        Map.of("projectId", project.get("_id").asText(), "name", "Chat")).get("session")
        .get("_id").asText();
  }

  private record Chat(GadgetDrone drone, Page page, String session) {}

  /** A drone of {@code who}'s, a page of theirs watching a new session, the drone registered. */
  private Chat chat(Person who, Path workspace, dev.gadget.core.llm.LlmClient llm)
      throws Exception {
    GadgetDrone drone = fx.drone(who, workspace, llm);
    Page page = fx.page(who.pageToken()).connected();
    String session = session(page);
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("drone registered", () -> !fx.store.listDrones(who.user().id()).isEmpty());
    return new Chat(drone, page, session);
  }

  private static String submit(Page page, String sessionId, String prompt) throws Exception {
    return page.submit(sessionId, prompt);
  }

  /** Blocks as a page assembles them from a snapshot and the live events after it. */
  static List<String> assemble(JsonNode snapshot, String turnId, List<Page.Event> events) {
    List<String> blocks = new ArrayList<>();
    long lastSeq = -1;
    String open = null;
    StringBuilder text = new StringBuilder();
    if (snapshot != null) {
      int openSeq = Integer.MAX_VALUE;
      for (JsonNode l : snapshot.get("live")) {
        JsonNode ob = l.get("openBlock");
        if (l.get("turnId").asText().equals(turnId) && ob != null && !ob.isNull()) {
          openSeq = ob.get("seq").asInt();
        }
      }
      for (JsonNode t : snapshot.get("turns")) {
        if (t.get("_id").asText().equals(turnId)) {
          for (JsonNode b : t.get("blocks")) {
            // as the page does: a stored block at the open block's seq is its checkpoint
            if (b.get("seq").asInt() < openSeq) {
              blocks.add(describe(b));
            }
          }
        }
      }
      for (JsonNode l : snapshot.get("live")) {
        if (l.get("turnId").asText().equals(turnId)) {
          lastSeq = l.get("lastSeq").asLong();
          JsonNode ob = l.get("openBlock");
          if (ob != null && !ob.isNull()) {
            open = ob.get("mode").asText();
            text.append(ob.get("content").asText());
          }
        }
      }
    }
    for (Page.Event e : events) {
      if (e.name().equals(Protocol.BLOCKS_SUPERSEDED)) {
        // the open block closes; the listed blocks (numbered from 0 here) are superseded
        if (open != null) {
          blocks.add(open + ":" + text);
          open = null;
          text.setLength(0);
        }
        for (JsonNode n : e.payload().get("blocks")) {
          blocks.set(n.asInt(), "superseded " + blocks.get(n.asInt()));
        }
        continue;
      }
      long seq = e.payload().path("seq").asLong(-1);
      if (e.name().equals(Protocol.TURN_STARTED) || seq <= lastSeq) {
        continue;
      }
      if (e.name().equals(Protocol.TOOL_STARTED) || e.name().equals(Protocol.TOOL_OUTPUT)) {
        continue;
      }
      String mode = e.name().equals(Protocol.THINKING) ? "thinking"
          : e.name().equals(Protocol.RESPONSE) ? "responding" : null;
      if (mode != null && mode.equals(open)) {
        text.append(e.payload().get("data").asText());
        continue;
      }
      if (open != null) {
        blocks.add(open + ":" + text);
        open = null;
        text.setLength(0);
      }
      if (mode != null) {
        open = mode;
        text.append(e.payload().get("data").asText());
      } else if (e.name().equals(Protocol.TOOL_CALL)) {
        blocks.add("tool:" + e.payload().get("call").get("name").asText());
      } else if (e.name().equals(Protocol.TURN_CHANGES)) {
        blocks.add(describe(GadgetJson.mapper().createObjectNode().put("mode", "diff")
            .set("content", e.payload().get("diff"))));
      }
    }
    if (open != null) {
      blocks.add(open + ":" + text);
    }
    return blocks;
  }

  private static String describe(JsonNode b) {
    String mode = b.get("mode").asText();
    if (mode.equals("diff")) {
      StringBuilder files = new StringBuilder("diff:");
      for (JsonNode f : b.get("content").get("files")) {
        files.append(f.get("change").asText()).append(' ').append(f.get("path").asText());
      }
      return files.toString();
    }
    return mode.equals("tool") ? "tool:" + b.get("content").get("name").asText()
        : (b.path("superseded").asBoolean() ? "superseded " : "") + mode + ":"
            + b.get("content").asText();
  }

  private static List<String> describe(ChatTurn turn) {
    List<String> out = new ArrayList<>();
    for (TurnBlock b : turn.blocks()) {
      out.add(describe(GadgetJson.mapper().valueToTree(b)));
    }
    return out;
  }

  /** Counts block writes (appendBlock, saveBlock) and finalizeTurn calls on a real store. */
  private static ChatStore counting(ChatStore real, AtomicInteger appends, AtomicInteger finals) {
    return (ChatStore) Proxy.newProxyInstance(ChatStore.class.getClassLoader(),
        new Class<?>[] {ChatStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("appendBlock") || method.getName().equals("saveBlock")) {
            appends.incrementAndGet();
          } else if (method.getName().equals("finalizeTurn")) {
            finals.incrementAndGet();
          }
          try {
            return method.invoke(real, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }

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
  void aDroneKilledMidTurnEndsItAsInterruptedAfterTheGracePeriod() throws Exception {
    fixture().server(b -> b.droneGracePeriod(Duration.ofMillis(500)));
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("word ".repeat(500)).build())
        .tokenDelay(Duration.ofMillis(10)).build();
    Path ws = tmp.resolve("ws");
    Chat chat = chat(ada, ws, llm);
    GadgetDrone drone = chat.drone();
    Page page = chat.page();
    String session = chat.session();
    String turn = submit(page, session, "long answer please");
    await("some tokens", () -> page.eventsOf(turn).size() > 5);

    drone.abandon();
    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).isEqualTo("interrupted");
    assertThat(done.get("error").asText()).contains("disconnected");
    ChatTurn stored = fx.store.findTurn(turn).orElseThrow();
    assertThat(stored.status()).isEqualTo(TurnStatus.INTERRUPTED);
    // what streamed before the crash was kept
    assertThat(stored.blocks()).isNotEmpty();
    assertThat(ws.resolve(".gadget/work-order.json")).exists();
    await("drone offline", () -> fx.store.listDrones(ada.user().id()).get(0).status()
        == DroneStatus.OFFLINE);

    // restarted later, it asks for recovery and is told to discard
    GadgetDrone again = fx.drone(ada, ws, ScriptedLlmClient.of());
    await("cache discarded", () -> !Files.exists(ws.resolve(".gadget/work-order.json")));
    await("available again", () -> again.activeTurnId().isEmpty());
    assertThat(again.workspaceId()).isEqualTo(drone.workspaceId());
  }

  @Test
  void aDroneRestartedWithinTheGracePeriodRetriesAndResumesAfterItsJournal() throws Exception {
    fixture().server(b -> b.droneGracePeriod(Duration.ofSeconds(20)));
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("Appending.")
            .toolCall("run_command", "{\"command\":\"echo ran >> log.txt\"}").build())
        .reply(ScriptedLlmClient.reply().text("word ".repeat(1000)).build())
        .reply(ScriptedLlmClient.reply().text("Resumed and done.").build())
        .tokenDelay(Duration.ofMillis(5)).build();
    Path ws = tmp.resolve("ws");
    Chat chat = chat(ada, ws, llm);
    GadgetDrone drone = chat.drone();
    Page page = chat.page();
    String session = chat.session();
    String turn = submit(page, session, "append then talk");
    await("second round streaming", () -> llm.requests().size() == 2
        && page.eventsOf(turn).stream().filter(e -> e.name().equals(Protocol.RESPONSE))
            .count() > 20);
    drone.abandon();

    GadgetDrone restarted = fx.drone(ada, ws, llm);
    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).isEqualTo("finished");
    // the tool of the journaled round did not run again
    assertThat(Files.readAllLines(ws.resolve("sample/log.txt"))).containsExactly("ran");
    // the model was given the journaled round instead of starting over
    List<LlmMessage> resumed = llm.requests().get(2).messages();
    assertThat(resumed).anySatisfy(m -> assertThat(m.role()).isEqualTo(Role.TOOL));
    assertThat(resumed).anySatisfy(m -> assertThat(m.toolCalls()).isNotEmpty());
    ChatTurn stored = fx.store.findTurn(turn).orElseThrow();
    assertThat(stored.status()).isEqualTo(TurnStatus.FINISHED);
    assertThat(describe(stored)).first().isEqualTo("responding:Appending.");
    List<String> blocks = describe(stored);
    assertThat(blocks.get(blocks.size() - 2)).endsWith("Resumed and done.");
    // the checkpoint taken before the crash is kept: the turn's diff has the journaled round's file
    assertThat(blocks).last().isEqualTo("diff:added log.txt");
    await("cache removed", () -> !Files.exists(ws.resolve(".gadget/work-order.json")));
    assertThat(restarted.activeTurnId()).isEmpty();
    // the page's view, assembled from the live events, matches what was stored
    assertThat(assemble(null, turn, page.eventsOf(turn))).isEqualTo(describe(stored));
  }

  @Test
  void aPageThatReconnectsMidStreamAssemblesExactlyTheModelsText() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    StringBuilder expected = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      expected.append("token").append(i).append(' ');
    }
    ScriptedLlmClient scripted = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().thinking("Planning it.").text(expected.toString())
            .build())
        .tokenDelay(Duration.ofMillis(1)).build();
    // The model holds after its 60th text token until the second page has its snapshot, so the
    // page is sure to reconnect mid-turn, having missed tokens, whatever the machine's speed.
    java.util.concurrent.CountDownLatch resume = new java.util.concurrent.CountDownLatch(1);
    dev.gadget.core.llm.LlmClient held = (request, listener) -> scripted.stream(request,
        new dev.gadget.core.llm.LlmListener() {
          int texts;

          @Override
          public void onThinking(String text) {
            listener.onThinking(text);
          }

          @Override
          public void onText(String text) {
            if (++texts == 60) {
              try {
                resume.await(20, java.util.concurrent.TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
            listener.onText(text);
          }

          @Override
          public void onComplete(dev.gadget.core.llm.LlmCompletion completion) {
            listener.onComplete(completion);
          }

          @Override
          public void onError(dev.gadget.core.llm.LlmException error,
              dev.gadget.core.llm.LlmCompletion partial) {
            listener.onError(error, partial);
          }
        });
    fx.drone(ada, tmp.resolve("ws"), held);
    Page first = fx.page(ada.pageToken()).connected();
    String session = session(first);
    first.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = submit(first, session, "count");
    // Every event before the hold (the thinking and 59 text tokens) has reached the first page,
    // so the server's lastSeq is at least 59 whatever the machine's speed.
    await("the tokens before the hold", () -> first.eventsOf(turn).size() >= 60);
    first.close();

    Page second = fx.page(ada.pageToken()).connected();
    JsonNode snapshot;
    try {
      snapshot = second.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    } finally {
      resume.countDown();
    }
    assertThat(snapshot.get("live")).hasSize(1);
    assertThat(snapshot.get("live").get(0).get("lastSeq").asLong()).isGreaterThan(40);
    assertThat(second.completion(turn).get("status").asText()).isEqualTo("finished");
    List<String> blocks = assemble(snapshot, turn, second.eventsOf(turn));
    assertThat(blocks).containsExactly("thinking:Planning it.", "responding:" + expected);
    assertThat(describe(fx.store.findTurn(turn).orElseThrow())).isEqualTo(blocks);
  }

  @Test
  void aRoundInterruptedByADroneCrashIsKeptSupersededAndItsRedoStreamsAsNewBlocks()
      throws Exception {
    fixture().server(b -> b.droneGracePeriod(Duration.ofSeconds(20)));
    Person ada = fx.person("ada");
    StringBuilder tokens = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      tokens.append("T").append(i).append(' ');
    }
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text(tokens.toString()).build())
        .reply(ScriptedLlmClient.reply().text("The answer, in full.").build())
        .reply(ScriptedLlmClient.reply().text("Next.").build())
        .tokenDelay(Duration.ofMillis(5)).build();
    Path ws = tmp.resolve("ws");
    Chat chat = chat(ada, ws, llm);
    Page page = chat.page();
    String session = chat.session();
    String turn = submit(page, session, "talk");
    await("the first round streaming", () -> page.eventsOf(turn).stream()
        .filter(e -> e.name().equals(Protocol.RESPONSE)).count() > 20);
    chat.drone().abandon();

    fx.drone(ada, ws, llm);
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    ChatTurn stored = fx.store.findTurn(turn).orElseThrow();
    List<String> blocks = describe(stored);
    assertThat(blocks).hasSize(2);
    assertThat(blocks.get(0)).startsWith("superseded responding:T0 T1 T2 ")
        .doesNotContain("The answer");
    assertThat(blocks.get(1)).isEqualTo("responding:The answer, in full.");
    // the page was told, and built what was stored
    assertThat(page.eventsOf(turn)).anySatisfy(e ->
        assertThat(e.name()).isEqualTo(Protocol.BLOCKS_SUPERSEDED));
    assertThat(assemble(null, turn, page.eventsOf(turn))).isEqualTo(blocks);
    // the model's context leaves the superseded round out
    String next = submit(page, session, "and then?");
    assertThat(page.completion(next).get("status").asText()).isEqualTo("finished");
    String context = llm.requests().get(llm.requests().size() - 1).messages().toString();
    assertThat(context).contains("The answer, in full.").doesNotContain("T1 T2");
  }

  @Test
  void theOpenBlockIsStoredBeforeAToolRunsAndEverySecondWhileItStreams() throws Exception {
    AtomicInteger writes = new AtomicInteger();
    fx = new RuntimeFixture(tmp, counting(new InMemoryChatStore(), writes, new AtomicInteger()));
    fx.server(b -> b);
    Person ada = fx.person("ada");
    StringBuilder words = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      words.append('w').append(i).append(' ');
    }
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("Waiting for the go.").toolCall("run_command",
            "{\"command\":\"while [ ! -f go ]; do sleep 0.05; done\"}").build())
        .reply(ScriptedLlmClient.reply().text(words.toString()).build())
        .tokenDelay(Duration.ofMillis(5)).build();
    Path ws = tmp.resolve("ws");
    Chat chat = chat(ada, ws, llm);
    String turn = submit(chat.page(), chat.session(), "wait, then talk");
    await("the text before the tool, stored while the tool runs", () -> describe(
        fx.store.findTurn(turn).orElseThrow()).equals(List.of("responding:Waiting for the go.")));
    // the server stores the open block, then forwards toolStarted: the page hears it just after
    await("toolStarted at the page", () -> chat.page().eventsOf(turn).stream().anyMatch(e ->
        e.name().equals(Protocol.TOOL_STARTED)
            && e.payload().get("name").asText().equals("run_command")));
    Files.createFile(ws.resolve("sample/go"));
    await("a checkpoint of the block still streaming", () -> {
      ChatTurn t = fx.store.findTurn(turn).orElseThrow();
      return t.status() == TurnStatus.PROCESSING && t.blocks().size() == 3
          && describe(t).get(2).startsWith("responding:w0 w1 w2 ");
    });
    assertThat(chat.page().completion(turn).get("status").asText()).isEqualTo("finished");
    ChatTurn stored = fx.store.findTurn(turn).orElseThrow();
    assertThat(describe(stored)).containsExactly("responding:Waiting for the go.",
        "tool:run_command", "responding:" + words, "diff:added go");
    // bounded by blocks + tool calls + the turn's seconds + a constant, never one per token
    long seconds = Duration.between(stored.createdAt(), stored.finishedAt()).toSeconds() + 1;
    System.out.printf("open-block checkpoints: %d block writes for 4 blocks (one a diff), 1 "
        + "tool call, %d s and 1,000 tokens%n", writes.get(), seconds);
    assertThat(writes.get()).isLessThanOrEqualTo(4 + 1 + (int) seconds + 2);
  }

  @Test
  void aPageCancelsARunningTurn() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("word ".repeat(1000)).build())
        .reply(answer("after cancel"))
        .tokenDelay(Duration.ofMillis(10)).build();
    Chat chat = chat(ada, tmp.resolve("ws"), llm);
    GadgetDrone drone = chat.drone();
    Page page = chat.page();
    String session = chat.session();
    String turn = submit(page, session, "go on forever");
    await("streaming", () -> page.eventsOf(turn).size() > 5);
    // while the turn runs, its work order is cached, without the API key
    Path cache = tmp.resolve("ws/.gadget/work-order.json");
    assertThat(cache).exists();
    assertThat(RuntimeFixture.gadgetFiles(tmp.resolve("ws")))
        .contains(turn).doesNotContain(RuntimeFixture.API_KEY);
    assertThat(page.request(Protocol.CANCEL_TURN, Map.of("turnId", turn)).get("ok").asBoolean())
        .isTrue();
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("cancelled");
    assertThat(fx.store.findTurn(turn).orElseThrow().status()).isEqualTo(TurnStatus.CANCELLED);
    await("drone free", () -> drone.activeTurnId().isEmpty());
    // the session goes on
    String next = submit(page, session, "next");
    assertThat(page.completion(next).get("status").asText()).isEqualTo("finished");
  }

  @Test
  void aSilentDroneIsGivenUp() throws Exception {
    fixture().server(b -> b.silenceTimeout(Duration.ofMillis(500)));
    Person ada = fx.person("ada");
    // A drone that accepts the work order and then says nothing (a hung process).
    TransportClient raw = fx.transport.client();
    fx.closeables.add(raw);
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", ada.droneToken())
        .put("workspaceId", "hung-ws").put("hostname", "h").put("workspaceDir", "/nowhere");
    Connection hung = raw.connect(Protocol.DRONE_NAMESPACE, () -> auth,
        new TransportClient.ClientListener() {});
    hung.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> ack.send(
        Protocol.args(new Payloads.WorkOrderAck(true, null))));
    Page page = fx.page(ada.pageToken()).connected();
    String session = session(page);
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = submit(page, session, "hello?");
    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).isEqualTo("interrupted");
    assertThat(done.get("error").asText()).contains("silent");
  }

  @Test
  void sessionLockAndWorkspaceModesAreHonoured() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.of(answer("done"));
    Path ws = tmp.resolve("ws");
    Chat chat = chat(ada, ws, llm);
    GadgetDrone drone = chat.drone();
    Page page = chat.page();
    String session = chat.session();
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();

    JsonNode lock = page.request(Protocol.REQUEST_SESSION_LOCK, Map.of("sessionId", session));
    assertThat(lock.get("ok").asBoolean()).as("lock: %s", lock).isTrue();
    assertThat(lock.get("workspaceId").asText()).isEqualTo(drone.workspaceId());
    assertThat(fx.store.findSession(session).orElseThrow().workspaceId())
        .isEqualTo(drone.workspaceId());
    assertThat(drone.workspace().data().chatSession().id()).isEqualTo(session);
    assertThat(drone.workspace().data().lockedProject().slug()).isEqualTo("sample");
    assertThat(java.nio.file.Files.readString(ws.resolve(".gadget/workspace.json")))
        .contains(session);

    // user mode: the person edits, the agent may not run
    JsonNode user = page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "user"));
    assertThat(user.get("ok").asBoolean()).as("user mode: %s", user).isTrue();
    assertThat(page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session, "prompt", "x"))
        .get("error").asText()).isEqualTo("every drone's workspace is in user mode");
    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "agent")).get("error").asText())
        .isEqualTo("agent mode is set by a work order");
    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "idle")).get("ok").asBoolean()).isTrue();
    String turn = submit(page, session, "now go");
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
  }

  @Test
  void userModeAndTheSessionLockSurviveADroneCrashAndRestart() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.of(answer("done"));
    Path ws = tmp.resolve("ws");
    Chat chat = chat(ada, ws, llm);
    Page page = chat.page();
    String session = chat.session();
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();
    assertThat(page.request(Protocol.REQUEST_SESSION_LOCK, Map.of("sessionId", session))
        .get("ok").asBoolean()).isTrue();
    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "user")).get("ok").asBoolean()).isTrue();
    assertThat(java.nio.file.Files.readString(ws.resolve(".gadget/workspace.json")))
        .contains("\"mode\" : \"user\"");

    chat.drone().abandon(); // as kill -9: nothing is written on the way out
    await("drone offline", () -> fx.store.findDrone(droneId).orElseThrow().status()
        == DroneStatus.OFFLINE);
    GadgetDrone again = fx.drone(ada, ws, llm);
    await("drone back", () -> fx.store.findDrone(droneId).orElseThrow().status()
        != DroneStatus.OFFLINE);
    assertThat(again.workspace().data().chatSession().id()).isEqualTo(session);
    assertThat(page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session, "prompt", "x"))
        .get("error").asText()).isEqualTo("every drone's workspace is in user mode");
    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "idle")).get("ok").asBoolean()).isTrue();
    assertThat(java.nio.file.Files.readString(ws.resolve(".gadget/workspace.json")))
        .contains("\"mode\" : \"idle\"");
    String turn = submit(page, session, "now go");
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
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
  void aCancelDuringTheCheckoutStopsGitAndTheTurn() throws Exception {
    fixture().server(b -> b.cancelTimeout(Duration.ofSeconds(30)));
    Person ada = fx.person("ada");
    // A "git server" that accepts connections and never answers: the clone hangs.
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50,
        java.net.InetAddress.getLoopbackAddress())) {
      List<java.net.Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
      Thread acceptor = new Thread(() -> {
        while (!silent.isClosed()) {
          try {
            accepted.add(silent.accept());
          } catch (java.io.IOException e) {
            return;
          }
        }
      }, "silent-git");
      acceptor.setDaemon(true);
      acceptor.start();
      ScriptedLlmClient llm = ScriptedLlmClient.of(answer("never asked"));
      Chat chat = chat(ada, tmp.resolve("ws"), llm);
      Page page = chat.page();
      JsonNode project = page.request(Protocol.CREATE_PROJECT, Map.of("name", "Hung",
          "slug", "hung", "gitUrl", "http://127.0.0.1:" + silent.getLocalPort() + "/hung.git"))
          .get("project");
      String session = page.request(Protocol.CREATE_SESSION,
          Map.of("projectId", project.get("_id").asText())).get("session").get("_id").asText();
      page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
      String turn = submit(page, session, "clone this");
      await("git is connected", () -> !accepted.isEmpty());

      assertThat(page.request(Protocol.CANCEL_TURN, Map.of("turnId", turn)).get("ok")
          .asBoolean()).isTrue();
      JsonNode done = page.completion(turn);
      // the drone itself ends it (the server would wait 30 s before giving up on it)
      assertThat(done.get("status").asText()).isEqualTo("cancelled");
      assertThat(done.get("error").asText()).isEqualTo("cancelled before the agent started");
      assertThat(llm.requests()).isEmpty();
      await("drone free", () -> chat.drone().activeTurnId().isEmpty());
      for (java.net.Socket socket : accepted) {
        socket.close();
      }
    }
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
