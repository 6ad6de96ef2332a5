package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TokenKind;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the stock-page tests share: a real {@link GadgetServer} over a
 * {@link WebSocketTransportServer} with ada's page and drone tokens, her drone on a
 * {@link WebSocketTransportClient}, the stock socket.io-client page ({@code src/test/node/page.js})
 * as a node process, and the page's lines read back as the page saw them.
 */
abstract class StockPageFixture {
  static final Duration WAIT = Duration.ofSeconds(20);
  static final ObjectMapper JSON = GadgetJson.mapper();
  static final String API_KEY = "sk-test-secret-0123456789";
  static final ProviderConfig PROVIDER =
      new ProviderConfig("scripted", "http://127.0.0.1:1", API_KEY, "test-model", null);
  static final List<String> STREAM_EVENTS =
      List.of("turnStarted", "thinking", "response", "toolStarted", "toolCall",
          "workOrderComplete");

  @TempDir Path tmp;
  String gitUrl;
  InMemoryChatStore store;
  User ada;
  String pageToken;
  String droneToken;
  WebSocketTransportServer transport;
  GadgetServer server;
  GadgetDrone drone;
  final List<ModelGate> gates = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startServer() throws Exception {
    gitUrl = SampleRepository.create(tmp.resolve("origin.git"));
    store = new InMemoryChatStore();
    Tokens tokens = new Tokens(store);
    ada = new User(Ids.next(), "ada", "Ada", Instant.now());
    store.createUser(ada);
    pageToken = tokens.issue(ada.id(), TokenKind.USER, "page").token();
    droneToken = tokens.issue(ada.id(), TokenKind.DRONE, "drone").token();
    transport = WebSocketTransportServer.builder().host("127.0.0.1").port(0).build();
    server = GadgetServer.builder()
        .store(store)
        .transport(transport)
        .provider(PROVIDER)
        .droneGracePeriod(Duration.ofSeconds(5))
        .silenceTimeout(Duration.ofSeconds(10))
        .cancelTimeout(Duration.ofSeconds(5))
        .ackTimeout(Duration.ofSeconds(5))
        .build();
    server.start();
  }

  @AfterEach
  void stop() {
    // A gate left closed would hold the scripted model's (shared) thread.
    gates.forEach(ModelGate::open);
    if (drone != null) {
      drone.close();
    }
    server.close();
  }

  /** Starts the drone in its own workspace and waits until the server has registered it. */
  Path startDrone(LlmClient llm) {
    Path ws = tmp.resolve("ws");
    drone = GadgetDrone.builder()
        .transport(WebSocketTransportClient.builder()
            .uri(transport.uri())
            .reconnectionDelay(Duration.ofMillis(100))
            .build())
        .token(droneToken)
        .workspaceDir(ws)
        .hostname("test-host")
        .llmClients(p -> llm)
        .heartbeatInterval(Duration.ofMillis(200))
        .ackTimeout(Duration.ofSeconds(2))
        .build();
    drone.start();
    await("the drone is registered", () -> store.listDrones(ada.id()).size() == 1
        && store.listDrones(ada.id()).get(0).status() == DroneStatus.AVAILABLE);
    return ws;
  }

  NodeProcess page(String scenario, Map<String, ?> args) throws Exception {
    return NodeProcess.start("page.js", transport.uri().toString(), scenario,
        JSON.writeValueAsString(args));
  }

  // ---------------------------------------------------------------- the page's view

  /** The stream events (and turnStarted) of the page's {@code conn}-th connection, in order. */
  static List<JsonNode> streamEvents(List<JsonNode> lines, int conn) {
    return lines.stream()
        .filter(l -> STREAM_EVENTS.contains(l.get("event").asText()))
        .filter(l -> l.get("conn").asInt() == conn)
        .toList();
  }

  static List<Long> seqs(List<JsonNode> events) {
    return events.stream().map(e -> e.get("payload").get("seq").asLong()).toList();
  }

  static long maxSeq(List<JsonNode> events) {
    return events.stream().filter(e -> !is(e, "turnStarted"))
        .mapToLong(e -> e.get("payload").get("seq").asLong()).max().orElse(-1);
  }

  static List<Long> range(long from, int count) {
    return IntStream.range(0, count).mapToObj(i -> from + i).toList();
  }

  static String text(List<JsonNode> events, String event) {
    return events.stream().filter(e -> is(e, event))
        .map(e -> e.get("payload").get("data").asText()).collect(Collectors.joining());
  }

  /**
   * Blocks as a page assembles them: the snapshot's stored blocks and open block of {@code turnId}
   * (if any), then the live events with {@code seq > lastSeq}.
   */
  static List<String> assemble(JsonNode snapshot, String turnId, List<JsonNode> events) {
    List<String> blocks = new ArrayList<>();
    long lastSeq = -1;
    String open = null;
    StringBuilder text = new StringBuilder();
    if (snapshot != null) {
      // as the page does: a stored block at or after the live open block's seq is that block's
      // checkpoint, which the open block replaces
      long openSeq = Long.MAX_VALUE;
      for (JsonNode l : snapshot.get("live")) {
        if (l.get("turnId").asText().equals(turnId)) {
          lastSeq = l.get("lastSeq").asLong();
          JsonNode ob = l.get("openBlock");
          if (ob != null && !ob.isNull()) {
            openSeq = ob.get("seq").asLong();
            open = ob.get("mode").asText();
            text.append(ob.get("content").asText());
          }
        }
      }
      for (JsonNode t : snapshot.get("turns")) {
        if (t.get("_id").asText().equals(turnId)) {
          ArrayNode before = JSON.createArrayNode();
          for (JsonNode b : t.get("blocks")) {
            if (b.get("seq").asLong() < openSeq) {
              before.add(b);
            }
          }
          blocks.addAll(describe(before));
        }
      }
    }
    for (JsonNode e : events) {
      String name = e.get("event").asText();
      JsonNode payload = e.get("payload");
      if (name.equals("turnStarted") || payload.get("seq").asLong() <= lastSeq) {
        continue;
      }
      String mode = name.equals("thinking") ? "thinking"
          : name.equals("response") ? "responding" : null;
      if (mode != null && mode.equals(open)) {
        text.append(payload.get("data").asText());
        continue;
      }
      if (open != null) {
        blocks.add(open + ":" + text);
        open = null;
        text.setLength(0);
      }
      if (mode != null) {
        open = mode;
        text.append(payload.get("data").asText());
      } else if (name.equals("toolCall")) {
        blocks.add("tool:" + payload.get("call").get("name").asText());
      }
    }
    if (open != null) {
      blocks.add(open + ":" + text);
    }
    return blocks;
  }

  /** A stored turn's blocks as the server sends them (with their {@code mode}). */
  /** The turn's blocks as JSON text carries them (a number read back is an int, not a long). */
  static JsonNode blocks(ChatTurn turn) {
    try {
      return JSON.readTree(JSON.writeValueAsString(turn)).get("blocks");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static List<String> describe(JsonNode blocks) {
    List<String> out = new ArrayList<>();
    for (JsonNode b : blocks) {
      String mode = b.get("mode").asText();
      out.add(mode.equals("tool") ? "tool:" + b.get("content").get("name").asText()
          : mode + ":" + b.get("content").asText());
    }
    return out;
  }

  // ---------------------------------------------------------------- node lines

  static boolean is(JsonNode line, String event) {
    return event.equals(line.path("event").asText());
  }

  /** The {@code index}-th ack of {@code name} the page printed. */
  static JsonNode ack(List<JsonNode> lines, String name, int index) {
    List<JsonNode> acks = lines.stream()
        .filter(l -> is(l, "ack") && l.get("name").asText().equals(name)).toList();
    assertThat(acks).as("acks of %s in %s", name, lines).hasSizeGreaterThan(index);
    return acks.get(index).get("payload");
  }

  static ObjectNode attempt(String namespace, ObjectNode auth) {
    ObjectNode a = JSON.createObjectNode().put("namespace", namespace);
    if (auth != null) {
      a.set("auth", auth);
    }
    return a;
  }

  /**
   * Reads node's lines into {@code into} up to and including the first that {@code stop} accepts,
   * within {@link #WAIT}; fails on a line reporting an error or the end of the script.
   */
  static List<JsonNode> readUntil(NodeProcess node, List<JsonNode> into,
      Predicate<JsonNode> stop) {
    node.readUntil(into, stop, WAIT);
    return into;
  }

  // ---------------------------------------------------------------- fixtures

  static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  /** A gate opened after the test at the latest. */
  ModelGate gate() {
    ModelGate g = new ModelGate(WAIT);
    gates.add(g);
    return g;
  }
}
