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
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.server.GadgetServer;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.store.Tokens;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 6's last item: a real {@link GadgetServer} over a {@link WebSocketTransportServer} and a
 * real {@link GadgetDrone} over a {@link WebSocketTransportClient} (the runtime's server and drone,
 * unchanged), a real git repository and a scripted model, with the stock npm socket.io-client
 * 4.8.1 ({@code transports: ['websocket']}, {@code src/test/node/page.js}) acting as the page of
 * docs/PROTOCOL.md.
 */
class StockPageRoundTripTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final ObjectMapper JSON = GadgetJson.mapper();
  private static final String API_KEY = "sk-test-secret-0123456789";
  private static final ProviderConfig PROVIDER =
      new ProviderConfig("scripted", "http://127.0.0.1:1", API_KEY, "test-model", null);
  private static final List<String> STREAM_EVENTS =
      List.of("turnStarted", "thinking", "response", "toolStarted", "toolCall",
          "workOrderComplete");

  @TempDir Path tmp;
  private String gitUrl;
  private InMemoryChatStore store;
  private User ada;
  private String pageToken;
  private String droneToken;
  private WebSocketTransportServer transport;
  private GadgetServer server;
  private GadgetDrone drone;
  private final List<ModelGate> gates = new CopyOnWriteArrayList<>();

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
  private Path startDrone(LlmClient llm) {
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

  private NodeProcess page(String scenario, Map<String, ?> args) throws Exception {
    return NodeProcess.start("page.js", transport.uri().toString(), scenario,
        JSON.writeValueAsString(args));
  }

  @Test
  void theStockClientAsThePageFollowsAWholeTurn() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().thinking("I should look at the README first.")
            .text("Let me read it.").toolCall("read_file", "{\"path\":\"README.md\"}").build(),
        ScriptedLlmClient.reply().thinking("Now I know.")
            .text("The README says hello from the sample project.").build());
    Path ws = startDrone(llm);

    List<JsonNode> lines;
    try (NodeProcess node = page("roundTrip", Map.of("token", pageToken, "gitUrl", gitUrl,
        "prompt", "What does the README say?"))) {
      lines = readUntil(node, new ArrayList<>(), line -> is(line, "done"));
    }

    JsonNode project = ack(lines, "createProject", 0).get("project");
    assertThat(project.get("gitUrl").asText()).isEqualTo(gitUrl);
    assertThat(project.get("userId").asText()).isEqualTo(ada.id());
    JsonNode session = ack(lines, "createSession", 0).get("session");
    assertThat(session.get("projectId").asText()).isEqualTo(project.get("_id").asText());
    JsonNode watched = ack(lines, "watchSession", 0);
    assertThat(watched.get("sessionId").asText()).isEqualTo(session.get("_id").asText());
    assertThat(watched.get("turns")).isEmpty();
    assertThat(watched.get("live")).isEmpty();
    String turnId = ack(lines, "submitPrompt", 0).get("turnId").asText();

    // The page got the whole turn: turnStarted, then every stream event once, seq 0, 1, 2, ...,
    // each with exactly one JSON object argument.
    List<JsonNode> events = streamEvents(lines, 1);
    assertThat(events).allSatisfy(e -> assertThat(e.get("argc").asInt()).isEqualTo(1));
    assertThat(events.get(0).get("event").asText()).isEqualTo("turnStarted");
    JsonNode started = events.get(0).get("payload").get("turn");
    assertThat(started.get("_id").asText()).isEqualTo(turnId);
    assertThat(started.get("status").asText()).isEqualTo("processing");
    assertThat(started.get("prompt").asText()).isEqualTo("What does the README say?");
    List<JsonNode> stream = events.subList(1, events.size());
    assertThat(stream).allSatisfy(e ->
        assertThat(e.get("payload").get("turnId").asText()).isEqualTo(turnId));
    assertThat(seqs(stream)).isEqualTo(range(0, stream.size()));
    JsonNode done = stream.get(stream.size() - 1);
    assertThat(done.get("event").asText()).isEqualTo("workOrderComplete");
    assertThat(done.get("payload").get("status").asText()).isEqualTo("finished");
    assertThat(stream.subList(0, stream.size() - 1)).noneMatch(e -> is(e, "workOrderComplete"));

    // The assembled text is the model's text, token for token.
    assertThat(text(stream, "thinking")).isEqualTo("I should look at the README first.Now I know.");
    assertThat(text(stream, "response"))
        .isEqualTo("Let me read it.The README says hello from the sample project.");
    List<JsonNode> toolCalls = stream.stream().filter(e -> is(e, "toolCall")).toList();
    assertThat(toolCalls).hasSize(1);
    JsonNode call = toolCalls.get(0).get("payload").get("call");
    assertThat(call.get("name").asText()).isEqualTo("read_file");
    // parameters are the arguments as a JSON text (docs/MODEL.md)
    assertThat(JSON.readTree(call.get("parameters").asText()))
        .isEqualTo(JSON.readTree("{\"path\":\"README.md\"}"));
    assertThat(call.get("callId").asText()).isNotBlank();
    assertThat(call.get("response").toString()).contains("hello from the sample project");
    List<String> assembled = assemble(null, turnId, stream);
    assertThat(assembled).containsExactly(
        "thinking:I should look at the README first.",
        "responding:Let me read it.",
        "tool:read_file",
        "thinking:Now I know.",
        "responding:The README says hello from the sample project.");

    // The store holds the same blocks, and a page watching afterwards gets exactly them.
    ChatTurn stored = store.findTurn(turnId).orElseThrow();
    assertThat(stored.status()).isEqualTo(TurnStatus.FINISHED);
    JsonNode storedBlocks = blocks(stored);
    assertThat(describe(storedBlocks)).isEqualTo(assembled);
    assertThat(storedBlocks.get(2).get("content")).isEqualTo(call);
    JsonNode after = ack(lines, "watchSession", 1);
    assertThat(after.get("live")).isEmpty();
    assertThat(after.get("turns")).hasSize(1);
    JsonNode turn = after.get("turns").get(0);
    assertThat(turn.get("_id").asText()).isEqualTo(turnId);
    assertThat(turn.get("status").asText()).isEqualTo("finished");
    assertThat(turn.get("blocks")).isEqualTo(storedBlocks);

    // The drone did the work: cloned over git, read the file, kept no key on disk.
    assertThat(ws.resolve("sample/README.md")).exists();
    assertThat(llm.remaining()).isZero();
    assertThat(Files.readString(ws.resolve(".gadget/workspace.json"))).doesNotContain(API_KEY);
    assertThat(lines.toString()).doesNotContain(API_KEY);
  }

  @Test
  void theStockClientIsRefusedWithTheServersMessageAndTheServerGoesOn() throws Exception {
    ArrayNode attempts = JSON.createArrayNode();
    attempts.add(attempt("/", JSON.createObjectNode().put("token", "gdt_nope")));
    attempts.add(attempt("/", JSON.createObjectNode().put("token", droneToken)));
    attempts.add(attempt("/", JSON.createObjectNode()));
    attempts.add(attempt("/", null));
    attempts.add(attempt("/drone", JSON.createObjectNode().put("token", pageToken)
        .put("workspaceId", "w")));
    attempts.add(attempt("/admin", JSON.createObjectNode().put("token", pageToken)));

    List<JsonNode> lines;
    try (NodeProcess node = page("refusals", Map.of("attempts", attempts, "token", pageToken))) {
      lines = readUntil(node, new ArrayList<>(), line -> is(line, "done"));
    }
    List<JsonNode> refusals = lines.stream().filter(l -> !is(l, "ack") && !is(l, "done")).toList();
    assertThat(refusals).extracting(l -> l.get("event").asText())
        .containsOnly("connect_error").hasSize(attempts.size());
    assertThat(refusals).extracting(l -> l.get("message").asText()).containsExactly(
        "invalid token",
        "this is a drone token; it cannot connect here",
        "missing token",
        "missing token",
        "this is a user token; it cannot connect here",
        "Invalid namespace");
    assertThat(refusals).allSatisfy(l -> {
      assertThat(l.get("data").isNull()).as("no data: %s", l).isTrue();
      assertThat(l.get("active").asBoolean()).as("the stock client gives up: %s", l).isFalse();
    });
    // The server kept serving: the right token gets in and is answered.
    assertThat(ack(lines, "listProjects", 0).get("projects")).isEmpty();
    assertThat(store.listDrones(ada.id())).isEmpty();
  }

  /**
   * The page loses its connection mid-turn while the model keeps streaming, connects again,
   * watches the session and assembles exactly the model's text from the snapshot's stored blocks,
   * its {@code openBlock} and the live events after its {@code lastSeq}. Nothing depends on
   * timing: the model waits after 40 text tokens until the page has dropped (so the drop is
   * mid-turn), the page watches again only once a second page (a {@link WebSocketTransportClient}
   * watching the same session) has seen the server forward 10 more events (so the page did miss
   * tokens, and the snapshot must supply them), and the model holds its last token until the
   * page has its snapshot (so the turn is still running when it watches). {@code how}: the page
   * loses its WebSocket and the stock manager reconnects by itself ({@code transport}), or it
   * calls {@code socket.disconnect()} and later {@code socket.connect()} ({@code socket}).
   */
  @ParameterizedTest
  @ValueSource(strings = {"transport", "socket"})
  void theStockClientAsThePageReconnectsMidTurn(String how) throws Exception {
    List<String> tokens = IntStream.range(0, 200).mapToObj(i -> "token" + i).toList();
    String words = String.join(" ", tokens);
    ModelGate beforeDrop = gate();
    ModelGate beforeLastToken = gate();
    LlmClient llm = new GatedLlm(ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().thinking("Planning it.").text(words).build())
        .tokenDelay(Duration.ofMillis(1))
        .build(), (call, token) -> Map.of(40, beforeDrop, tokens.size() - 1, beforeLastToken)
        .get(token));
    startDrone(llm);

    List<JsonNode> lines = new ArrayList<>();
    WebSocketTransportClient observerClient = WebSocketTransportClient.builder()
        .uri(transport.uri()).build();
    try (NodeProcess node = page("reconnect", Map.of("token", pageToken, "gitUrl", gitUrl,
        "prompt", "count", "how", how))) {
      readUntil(node, lines, line -> is(line, "response")
          && lines.stream().filter(l -> is(l, "response")).count() >= 20);
      beforeDrop.awaitReached();
      node.send("drop");
      readUntil(node, lines, line -> is(line, "dropping"));
      long seenBeforeDrop = maxSeq(streamEvents(lines, 1));
      beforeDrop.open();
      AtomicLong forwarded = observe(observerClient,
          ack(lines, "createSession", 0).get("session").get("_id").asText());
      await("the server forwarded 10 events the page did not get",
          () -> forwarded.get() >= seenBeforeDrop + 10);
      node.send("watch");
      readUntil(node, lines, line -> is(line, "snapshot"));
      beforeLastToken.open();
      readUntil(node, lines, line -> is(line, "done"));
    } finally {
      observerClient.close();
    }

    String turnId = ack(lines, "submitPrompt", 0).get("turnId").asText();
    List<JsonNode> first = streamEvents(lines, 1);
    List<JsonNode> second = streamEvents(lines, 2);
    JsonNode disconnect = lines.stream().filter(l -> is(l, "disconnect")).findFirst().orElseThrow();
    if (how.equals("transport")) {
      assertThat(disconnect.get("active").asBoolean()).as("reconnects by itself").isTrue();
    } else {
      assertThat(disconnect.get("reason").asText()).isEqualTo("io client disconnect");
    }
    assertThat(first.get(0).get("event").asText()).isEqualTo("turnStarted");
    assertThat(seqs(first.subList(1, first.size()))).isEqualTo(range(0, first.size() - 1));
    assertThat(first).noneMatch(e -> is(e, "workOrderComplete"));

    JsonNode snapshot = lines.stream().filter(l -> is(l, "snapshot")).findFirst().orElseThrow()
        .get("payload");
    assertThat(snapshot.get("live")).hasSize(1);
    JsonNode live = snapshot.get("live").get(0);
    assertThat(live.get("turnId").asText()).isEqualTo(turnId);
    long lastSeq = live.get("lastSeq").asLong();
    assertThat(lastSeq).as("the snapshot reflects events the page never got")
        .isGreaterThan(maxSeq(first));
    assertThat(live.get("openBlock").get("mode").asText()).isEqualTo("responding");

    // After joining, the page got every event after lastSeq once, in order, up to the end.
    assertThat(second).allSatisfy(e -> assertThat(e.get("argc").asInt()).isEqualTo(1));
    assertThat(second).noneMatch(e -> is(e, "turnStarted"));
    assertThat(seqs(second)).isEqualTo(range(lastSeq + 1, second.size()));
    JsonNode done = second.get(second.size() - 1);
    assertThat(done.get("event").asText()).isEqualTo("workOrderComplete");
    assertThat(done.get("payload").get("status").asText()).isEqualTo("finished");

    // Some tokens reached the page only through the snapshot; still the text is exact.
    Set<String> received = Arrays.stream((text(first, "response") + " "
        + text(second, "response")).trim().split("\\s+")).collect(Collectors.toSet());
    assertThat(tokens).anyMatch(t -> !received.contains(t));
    List<String> assembled = assemble(snapshot, turnId, second);
    assertThat(assembled).containsExactly("thinking:Planning it.", "responding:" + words);
    ChatTurn stored = store.findTurn(turnId).orElseThrow();
    assertThat(stored.status()).isEqualTo(TurnStatus.FINISHED);
    assertThat(describe(blocks(stored))).isEqualTo(assembled);
  }

  /**
   * A second page on a {@link WebSocketTransportClient} watching {@code sessionId}: the highest
   * {@code seq} the server has forwarded (or reflected in the snapshot) so far.
   */
  private AtomicLong observe(WebSocketTransportClient client, String sessionId) throws Exception {
    AtomicLong highest = new AtomicLong(-1);
    Connection c = client.connect("/", () -> JSON.createObjectNode().put("token", pageToken),
        new TransportClient.ClientListener() {});
    for (String event : List.of("thinking", "response", "toolCall")) {
      c.on(event, (args, ack) -> highest.accumulateAndGet(args.get(0).get("seq").asLong(),
          Math::max));
    }
    JsonNode snapshot = c.emitWithAck("watchSession",
            List.of(JSON.createObjectNode().put("sessionId", sessionId)), WAIT)
        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).get(0);
    for (JsonNode live : snapshot.get("live")) {
      highest.accumulateAndGet(live.get("lastSeq").asLong(), Math::max);
    }
    return highest;
  }

  // ---------------------------------------------------------------- the page's view

  /** The stream events (and turnStarted) of the page's {@code conn}-th connection, in order. */
  private static List<JsonNode> streamEvents(List<JsonNode> lines, int conn) {
    return lines.stream()
        .filter(l -> STREAM_EVENTS.contains(l.get("event").asText()))
        .filter(l -> l.get("conn").asInt() == conn)
        .toList();
  }

  private static List<Long> seqs(List<JsonNode> events) {
    return events.stream().map(e -> e.get("payload").get("seq").asLong()).toList();
  }

  private static long maxSeq(List<JsonNode> events) {
    return events.stream().filter(e -> !is(e, "turnStarted"))
        .mapToLong(e -> e.get("payload").get("seq").asLong()).max().orElse(-1);
  }

  private static List<Long> range(long from, int count) {
    return IntStream.range(0, count).mapToObj(i -> from + i).toList();
  }

  private static String text(List<JsonNode> events, String event) {
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
  private static JsonNode blocks(ChatTurn turn) {
    try {
      return JSON.readTree(JSON.writeValueAsString(turn)).get("blocks");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<String> describe(JsonNode blocks) {
    List<String> out = new ArrayList<>();
    for (JsonNode b : blocks) {
      String mode = b.get("mode").asText();
      out.add(mode.equals("tool") ? "tool:" + b.get("content").get("name").asText()
          : mode + ":" + b.get("content").asText());
    }
    return out;
  }

  // ---------------------------------------------------------------- node lines

  private static boolean is(JsonNode line, String event) {
    return event.equals(line.path("event").asText());
  }

  /** The {@code index}-th ack of {@code name} the page printed. */
  private static JsonNode ack(List<JsonNode> lines, String name, int index) {
    List<JsonNode> acks = lines.stream()
        .filter(l -> is(l, "ack") && l.get("name").asText().equals(name)).toList();
    assertThat(acks).as("acks of %s in %s", name, lines).hasSizeGreaterThan(index);
    return acks.get(index).get("payload");
  }

  private static ObjectNode attempt(String namespace, ObjectNode auth) {
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
  private static List<JsonNode> readUntil(NodeProcess node, List<JsonNode> into,
      Predicate<JsonNode> stop) {
    node.readUntil(into, stop, WAIT);
    return into;
  }

  // ---------------------------------------------------------------- fixtures

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  /** A gate opened after the test at the latest. */
  private ModelGate gate() {
    ModelGate g = new ModelGate(WAIT);
    gates.add(g);
    return g;
  }
}
