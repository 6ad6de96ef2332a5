package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A server restart interrupts no turn: the new server takes back the turn its drone still runs,
 * the drone sends the stream again from after the last stored tool call, and the turn finishes
 * whole, its text stored and shown once.
 */
class ServerRestartTest extends RuntimeTestBase {
  private static final String LONG = "word ".repeat(400);

  @Test
  void aRestartedServerTakesBackTheRunningTurnAndItFinishesWhole() throws Exception {
    fx = new RuntimeFixture(tmp);
    GadgetServer first = fx.server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().thinking("Look first.").text("Reading.")
            .toolCall("read_file", "{\"path\":\"README.md\"}").build())
        .reply(ScriptedLlmClient.reply().thinking("Now write.").text(LONG).build())
        .reply(ScriptedLlmClient.reply().text("again").build())
        .tokenDelay(Duration.ofMillis(3)).build();
    GadgetDrone drone = fx.drone(ada, tmp.resolve("ws"), llm);
    Page page = fx.page(ada.pageToken()).connected();
    String session = session(page);
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = page.submit(session, "write");
    await("the second round streams", () -> page.eventsOf(turn).stream()
        .filter(e -> e.name().equals(Protocol.RESPONSE)).count() > 80);

    first.close();
    fx.server(b -> b);
    assertThat(fx.store.findTurn(turn).orElseThrow().status()).as("not ended by the restart")
        .isEqualTo(TurnStatus.PROCESSING);
    await("page back", () -> page.connection.isConnected());
    int from = page.events.size();
    JsonNode snapshot = page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));

    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).as("%s", done).isEqualTo("finished");
    ChatTurn stored = fx.store.findTurn(turn).orElseThrow();
    assertThat(stored.toolCalls()).as("the tool ran once").hasSize(1);
    assertThat(stored.blocks()).noneMatch(TurnBlock::isSuperseded);
    assertThat(text(stored.blocks(), "responding")).isEqualTo("Reading." + LONG);
    assertThat(text(stored.blocks(), "thinking")).isEqualTo("Look first.Now write.");
    // what the page shows: the snapshot after the restart, then the events after it
    assertThat(shown(snapshot, turn, page.events.subList(from, page.events.size())))
        .isEqualTo(contents(stored.blocks()));
    await("drone free", () -> drone.activeTurnId().isEmpty());
    await("drone available", () -> fx.store.listDrones(ada.user().id()).get(0).status()
        == DroneStatus.AVAILABLE);
    assertThat(page.completion(page.submit(session, "again")).get("status").asText())
        .isEqualTo("finished");
  }

  @Test
  void aBlockTheStoreHadCheckpointedIsRebuiltWholeWhenItsRoundEndsInAToolCall() throws Exception {
    fx = new RuntimeFixture(tmp);
    GadgetServer first = fx.server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text(LONG)
            .toolCall("read_file", "{\"path\":\"README.md\"}").build())
        .reply(ScriptedLlmClient.reply().text("Done.").build())
        .tokenDelay(Duration.ofMillis(4)).build();
    fx.drone(ada, tmp.resolve("ws"), llm);
    Page page = fx.page(ada.pageToken()).connected();
    String session = session(page);
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = page.submit(session, "read");
    // the store holds a checkpoint of the open block: stale once the replay rebuilds it
    await("a checkpoint stored", () -> fx.store.findTurn(turn).map(t -> !t.blocks().isEmpty())
        .orElse(false));

    first.close();
    fx.server(b -> b);
    await("page back", () -> page.connection.isConnected());
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).as("%s", done).isEqualTo("finished");
    assertThat(text(fx.store.findTurn(turn).orElseThrow().blocks(), "responding"))
        .isEqualTo(LONG + "Done.");
  }

  @Test
  void aTurnTakenBackAfterARestartIsStillRetriedWhenItsDroneCrashes() throws Exception {
    fx = new RuntimeFixture(tmp);
    GadgetServer first = fx.server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("Appending.")
            .toolCall("run_command", "{\"command\":\"echo ran >> log.txt\"}").build())
        .reply(ScriptedLlmClient.reply().text(LONG).build())
        .reply(ScriptedLlmClient.reply().text("Resumed and done.").build())
        .tokenDelay(Duration.ofMillis(3)).build();
    java.nio.file.Path ws = tmp.resolve("ws");
    GadgetDrone drone = fx.drone(ada, ws, llm);
    Page page = fx.page(ada.pageToken()).connected();
    String session = session(page);
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = page.submit(session, "append then talk");
    await("the second round streams", () -> llm.requests().size() == 2);

    first.close();
    fx.server(b -> b.droneGracePeriod(Duration.ofSeconds(20)));
    await("page back", () -> page.connection.isConnected());
    page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    await("taken back and streaming again", () -> page.eventsOf(turn).stream()
        .filter(e -> e.name().equals(Protocol.RESPONSE)).count() > 120);
    drone.abandon(); // a crash: the turn's work order is kept in .gadget/
    fx.drone(ada, ws, llm);

    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).as("%s", done).isEqualTo("finished");
    assertThat(done.get("stats").get("crashRetries").asInt()).isEqualTo(1);
    assertThat(java.nio.file.Files.readAllLines(ws.resolve("sample/log.txt")))
        .as("the command ran once").containsExactly("ran");
    assertThat(text(fx.store.findTurn(turn).orElseThrow().blocks(), "responding"))
        .endsWith("Resumed and done.");
  }

  private String session(Page page) throws Exception {
    JsonNode project = fx.sampleProject(page);
    return page.request(Protocol.CREATE_SESSION, Map.of("projectId",
        project.get("_id").asText(), "name", "Chat")).get("session").get("_id").asText();
  }

  private static String text(List<TurnBlock> blocks, String mode) {
    StringBuilder sb = new StringBuilder();
    for (TurnBlock b : blocks) {
      if (b.mode().equals(mode)) {
        sb.append(content(b));
      }
    }
    return sb.toString();
  }

  private static Map<Integer, String> contents(List<TurnBlock> blocks) {
    Map<Integer, String> out = new TreeMap<>();
    blocks.stream().filter(b -> !(b instanceof TurnBlock.Tool))
        .forEach(b -> out.put(b.seq(), b.mode() + ":" + content(b)));
    return out;
  }

  private static String content(TurnBlock b) {
    if (b instanceof TurnBlock.Thinking t) {
      return t.content();
    }
    return b instanceof TurnBlock.Responding r ? r.content() : "";
  }

  /** The text blocks a page following PROTOCOL.md shows: a snapshot, then events. */
  private static Map<Integer, String> shown(JsonNode snapshot, String turnId,
      List<RuntimeFixture.Page.Event> events) {
    Map<Integer, String> blocks = new TreeMap<>();
    long lastSeq = -1;
    int next = 0; // the next block's seq: after every block of the snapshot, tool blocks too
    for (JsonNode t : snapshot.path("turns")) {
      if (t.path("_id").asText().equals(turnId)) {
        for (JsonNode b : t.path("blocks")) {
          next = Math.max(next, b.path("seq").asInt() + 1);
          if (!b.path("mode").asText().equals("tool")) {
            blocks.put(b.path("seq").asInt(), b.path("mode").asText() + ":"
                + b.path("content").asText());
          }
        }
      }
    }
    int open = -1;
    for (JsonNode l : snapshot.path("live")) {
      if (l.path("turnId").asText().equals(turnId)) {
        lastSeq = l.path("lastSeq").asLong();
        JsonNode o = l.path("openBlock");
        if (!o.isMissingNode() && !o.isNull()) {
          open = o.path("seq").asInt();
          blocks.put(open, o.path("mode").asText() + ":" + o.path("content").asText());
        }
      }
    }
    if (open >= 0) {
      next = Math.max(next, open + 1);
    }
    String openMode = open >= 0 ? blocks.get(open).split(":", 2)[0] : null;
    for (RuntimeFixture.Page.Event e : events) {
      JsonNode p = e.payload();
      if (!p.path("turnId").asText().equals(turnId)) {
        continue;
      }
      if (e.name().equals(Protocol.TURN_RESUMED)) {
        int fromBlock = p.path("fromBlock").asInt();
        blocks.keySet().removeIf(k -> k >= fromBlock);
        next = fromBlock;
        open = -1;
        openMode = null;
        lastSeq = p.path("lastSeq").asLong();
        continue;
      }
      if (!p.has("seq") || p.path("seq").asLong() <= lastSeq) {
        continue;
      }
      lastSeq = p.path("seq").asLong();
      String mode = e.name().equals(Protocol.THINKING) ? "thinking"
          : e.name().equals(Protocol.RESPONSE) ? "responding" : null;
      if (mode == null) {
        if (!e.name().equals(Protocol.TOOL_OUTPUT)) {
          open = -1;
          openMode = null;
          if (!e.name().equals(Protocol.TOOL_STARTED)
              && !e.name().equals(Protocol.WORK_ORDER_COMPLETE)) {
            next++;
          }
        }
        continue;
      }
      if (open >= 0 && mode.equals(openMode)) {
        blocks.put(open, blocks.get(open) + p.path("data").asText());
      } else {
        open = next++;
        openMode = mode;
        blocks.put(open, mode + ":" + p.path("data").asText());
      }
    }
    return blocks;
  }
}
