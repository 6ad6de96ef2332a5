package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.server.GadgetServer;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.store.Tokens;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 38, point 6: a page written from docs/PROTOCOL.md's snapshot section alone
 * ({@code src/test/node/snapshot-page.js}, the stock npm socket.io-client 4.8.1) against a real
 * {@link GadgetServer} and {@link GadgetDrone} over the WebSocket transport, with a scripted model
 * that streams 8 turns of long blocks (thinking, text, a tool call, text). The page loses its
 * connection every few events of a running turn, about 200 times in all, and each time rebuilds
 * what it shows from the snapshot and the live events after {@code lastSeq}. What it shows of
 * every turn is the stored turn exactly: no block twice, no token missing.
 *
 * <p>One drop in each turn is not left to timing: the model waits in the middle of the turn's
 * last block until the server has stored that block's checkpoint and the page has dropped and
 * rebuilt. A snapshot that gave the checkpoint in {@code turns} besides the {@code openBlock} in
 * {@code live} shows that block twice there (and in what the page shows at the turn's end).
 */
class SnapshotPageTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = GadgetJson.mapper();
  private static final ProviderConfig PROVIDER = new ProviderConfig("scripted",
      "http://127.0.0.1:1", "sk-test-secret-0123456789", "test-model", null);
  private static final int TURNS = 8;
  private static final int THINKING = 150;
  private static final int TEXT = 200;
  private static final int LAST = 300;
  /** The text token of the last block before which the model waits. */
  private static final int GATE_AT = 150;

  @TempDir Path tmp;
  private InMemoryChatStore store;
  private GadgetServer server;
  private GadgetDrone drone;
  private final List<ModelGate> gates = IntStream.range(0, TURNS)
      .mapToObj(i -> new ModelGate(WAIT)).toList();

  @AfterEach
  void stop() {
    gates.forEach(ModelGate::open); // a gate left closed would hold the scripted model's thread
    if (drone != null) {
      drone.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aPageWrittenFromTheSnapshotSectionShowsEveryTurnAsStoredThroughTwoHundredDrops()
      throws Exception {
    String gitUrl = SampleRepository.create(tmp.resolve("origin.git"));
    store = new InMemoryChatStore();
    Tokens tokens = new Tokens(store);
    User ada = new User(Ids.next(), "ada", "Ada", Instant.now());
    store.createUser(ada);
    WebSocketTransportServer transport =
        WebSocketTransportServer.builder().host("127.0.0.1").port(0).build();
    server = GadgetServer.builder().store(store).transport(transport).provider(PROVIDER)
        .droneGracePeriod(Duration.ofSeconds(5)).silenceTimeout(Duration.ofSeconds(10))
        .cancelTimeout(Duration.ofSeconds(5)).ackTimeout(Duration.ofSeconds(5)).build();
    server.start();
    ScriptedLlmClient.Builder script = ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(1));
    for (int i = 0; i < TURNS; i++) {
      script.reply(ScriptedLlmClient.reply().thinking(words(i, "think", THINKING))
          .text(words(i, "say", TEXT)).toolCall("read_file", "{\"path\":\"README.md\"}").build());
      script.reply(ScriptedLlmClient.reply().text(words(i, "end", LAST)).build());
    }
    // each turn's second round waits at its gate before text token GATE_AT
    LlmClient llm = new GatedLlm(script.build(),
        (call, token) -> call % 2 == 1 && token == GATE_AT ? gates.get(call / 2) : null);
    drone = GadgetDrone.builder()
        .transport(WebSocketTransportClient.builder().uri(transport.uri())
            .reconnectionDelay(Duration.ofMillis(100)).build())
        .token(tokens.issue(ada.id(), TokenKind.DRONE, "drone").token())
        .workspaceDir(tmp.resolve("ws")).hostname("test-host")
        .llmClients(p -> llm)
        .heartbeatInterval(Duration.ofMillis(200)).ackTimeout(Duration.ofSeconds(2))
        .build();
    drone.start();
    await("the drone is registered", () -> store.listDrones(ada.id()).size() == 1
        && store.listDrones(ada.id()).get(0).status() == DroneStatus.AVAILABLE);

    List<JsonNode> lines = new ArrayList<>();
    List<String> prompts = IntStream.range(0, TURNS).mapToObj(i -> "turn " + i).toList();
    try (NodeProcess node = NodeProcess.start("snapshot-page.js", transport.uri().toString(),
        JSON.writeValueAsString(Map.of("token", tokens.issue(ada.id(), TokenKind.USER, "page")
            .token(), "gitUrl", gitUrl, "prompts", prompts, "dropEvery", 20)))) {
      for (int i = 0; i < TURNS; i++) {
        int turn = i;
        String turnId = readUntil(node, lines, l -> is(l, "submitted")
            && l.get("index").asInt() == turn).get("turnId").asText();
        gates.get(i).awaitReached();
        String prefix = words(i, "end", GATE_AT);
        await("turn " + i + "'s open block has its checkpoint stored", () -> {
          List<TurnBlock> blocks = store.findTurn(turnId).orElseThrow().blocks();
          return blocks.size() == 4 && blocks.get(3) instanceof TurnBlock.Responding r
              && r.content().equals(prefix);
        });
        node.send("drop");
        JsonNode rebuilt = readUntil(node, lines,
            l -> is(l, "rebuilt") && l.get("asked").asBoolean());
        assertThat(strings(rebuilt.get("view")))
            .as("turn %d rebuilt while its open block has a stored checkpoint", i)
            .containsExactly("thinking:" + words(i, "think", THINKING),
                "responding:" + words(i, "say", TEXT), "tool:read_file", "responding:" + prefix);
        gates.get(i).open();
      }
      readUntil(node, lines, l -> is(l, "done"));
    }

    List<JsonNode> shown = lines.stream().filter(l -> is(l, "shown")).toList();
    assertThat(shown).hasSize(TURNS);
    int drops = 0;
    for (int i = 0; i < TURNS; i++) {
      JsonNode s = shown.get(i);
      String turnId = s.get("turnId").asText();
      ChatTurn stored = store.findTurn(turnId).orElseThrow();
      assertThat(stored.status()).isEqualTo(TurnStatus.FINISHED);
      List<String> storedBlocks = describe(stored);
      assertThat(storedBlocks).as("turn %d as stored", i).containsExactly(
          "thinking:" + words(i, "think", THINKING), "responding:" + words(i, "say", TEXT),
          "tool:read_file", "responding:" + words(i, "end", LAST));
      assertThat(strings(s.get("view"))).as("turn %d as the page shows it", i)
          .isEqualTo(storedBlocks);
      List<JsonNode> rebuilds = lines.stream().filter(l -> is(l, "rebuilt")
          && l.get("turnId").asText().equals(turnId)).toList();
      for (JsonNode r : rebuilds) {
        assertThat(isPrefix(strings(r.get("view")), storedBlocks))
            .as("turn %d as the page showed it after a snapshot: %s", i, r.get("view")).isTrue();
      }
      assertThat(rebuilds).as("turn %d had tokens only the snapshot gave", i)
          .anyMatch(r -> r.get("missed").asLong() > 0);
      assertThat(s.get("drops").asInt()).as("drops in turn %d", i).isGreaterThanOrEqualTo(8);
      drops += s.get("drops").asInt();
    }
    assertThat(drops).as("dropped connections over the %d turns", TURNS)
        .isGreaterThanOrEqualTo(120);
  }

  /** {@code count} words of turn {@code turn}'s block {@code block}, joined by spaces. */
  private static String words(int turn, String block, int count) {
    return IntStream.range(0, count).mapToObj(w -> "t" + turn + block + w)
        .collect(Collectors.joining(" "));
  }

  /** A stored turn's blocks, each "mode:text" ("tool:name" for a tool block). */
  private static List<String> describe(ChatTurn turn) {
    return turn.blocks().stream().map(b -> b instanceof TurnBlock.Tool t
        ? "tool:" + t.content().name()
        : b instanceof TurnBlock.Thinking t ? "thinking:" + t.content()
        : b instanceof TurnBlock.Responding r ? "responding:" + r.content()
        : b.toString()).toList();
  }

  /**
   * Whether {@code shown} is what the page may show of {@code last} while it streams: its first
   * blocks, the last of them possibly not whole yet.
   */
  private static boolean isPrefix(List<String> shown, List<String> last) {
    if (shown.size() > last.size()) {
      return false;
    }
    for (int i = 0; i < shown.size(); i++) {
      boolean whole = shown.get(i).equals(last.get(i));
      if (!whole && !(i == shown.size() - 1 && last.get(i).startsWith(shown.get(i)))) {
        return false;
      }
    }
    return true;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static boolean is(JsonNode line, String event) {
    return event.equals(line.path("event").asText());
  }

  /**
   * Reads node's lines into {@code into} up to the first that {@code stop} accepts (returned),
   * within {@link #WAIT}; fails on a line reporting an error or the end of the script.
   */
  private static JsonNode readUntil(NodeProcess node, List<JsonNode> into,
      Predicate<JsonNode> stop) {
    return node.readUntil(into, stop, WAIT);
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }
}
