package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Role;
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
 * A turn through a drone crash, a restart within the grace period, a silent drone and a page
 * that reconnects: what is stored, superseded, resumed and assembled.
 */
class TurnRecoveryTest extends ChatRuntimeTestBase {
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
}
