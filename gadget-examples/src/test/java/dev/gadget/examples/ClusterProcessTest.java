package dev.gadget.examples;

import static dev.gadget.examples.CrashSuiteTest.java;
import static dev.gadget.examples.CrashSuiteTest.read;
import static dev.gadget.examples.CrashSuiteTest.tail;
import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.cluster.redis.TestRedis;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.store.mongo.MongoChatStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code gadget server --cluster} processes on one Redis (a real redis-server) and one
 * store (a MongoDB-protocol server in a process of its own), a real {@code gadget drone} on node
 * A, a page on the stock socket.io-client on node B, the prompts sent through node C. A turn's
 * events reach both pages once and in order; then node A is killed with SIGKILL mid-turn: the
 * drone goes to node B, which takes the turn over, and it finishes with nothing lost or doubled
 * and its command run once; then Redis is killed mid-turn and started again empty; then node C
 * (a page's, and the one that took the prompt) is killed mid-turn and a page that starts
 * watching on another node gets the whole turn.
 */
class ClusterProcessTest {
  private static final Path WEB_LIBS =
      Path.of("src/main/web-libs/node_modules").toAbsolutePath();

  @TempDir Path tmp;
  private final List<Process> processes = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final String secretKey = Base64.getEncoder().encodeToString(new byte[32]);
  private CrashSuiteTest.ScriptLlm llm;
  private TestRedis redis;
  private String mongoUri;

  @AfterEach
  void stopAll() throws Exception {
    for (Process p : processes) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private Process start(String name, ProcessBuilder pb, String ready) throws IOException {
    Path log = tmp.resolve(name + ".log");
    pb.redirectOutput(log.toFile());
    pb.environment().put("GADGET_LLM_API_KEY", "sk-cluster-test");
    pb.environment().put("GADGET_SECRET_KEY", secretKey);
    Process p = pb.start();
    processes.add(p);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!read(log).contains(ready)) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError(name + " did not start; it printed:\n" + read(log));
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    return p;
  }

  private Process node(String id, int port) throws IOException {
    return start("server-" + id, java("server", "--port", String.valueOf(port), "--mongo",
        mongoUri, "--cluster", redis.uri(), "--node-id", id, "--llm", "openai", "--base-url",
        llm.v1(), "--model", "m", "--drone-grace-period", "10", "--metrics"), "  Drones:");
  }

  /** A page on the stock socket.io-client: every line it printed, as JSON. */
  private List<JsonNode> stockPage(int port, String token, String sessionId) throws IOException {
    assertThat(WEB_LIBS.resolve("socket.io-client")).as("the page's npm packages are installed "
        + "(the build runs npm ci in src/main/web-libs)").isDirectory();
    ProcessBuilder pb = new ProcessBuilder("node", Path.of("src/test/node/cluster-page.js")
        .toAbsolutePath().toString(), "http://127.0.0.1:" + port, GadgetJson.mapper()
        .createObjectNode().put("token", token).put("sessionId", sessionId)
        .put("deadlineMs", 240_000).toString()).redirectError(tmp.resolve("page.err").toFile());
    pb.environment().put("NODE_PATH", WEB_LIBS.toString());
    Process p = pb.start();
    processes.add(p);
    List<JsonNode> lines = new CopyOnWriteArrayList<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          lines.add(GadgetJson.mapper().readTree(line));
        }
      } catch (IOException e) {
        // the page ended
      }
    }, "stock-page-reader");
    reader.setDaemon(true);
    reader.start();
    await("the stock page's snapshot", () -> lines.stream()
        .anyMatch(l -> l.path("event").asText().equals("snapshot")));
    return lines;
  }

  private static String metrics(int port) {
    try {
      return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException | InterruptedException e) {
      return "";
    }
  }

  /** The stock page's events of {@code turnId}, in order. */
  private static List<JsonNode> events(List<JsonNode> lines, String turnId) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode l : lines) {
      JsonNode p = l.path("payload");
      String id = l.path("name").asText().equals(Protocol.TURN_STARTED)
          ? p.path("turn").path("_id").asText() : p.path("turnId").asText();
      if (l.path("event").asText().equals("ev") && id.equals(turnId)) {
        out.add(l);
      }
    }
    return out;
  }

  /**
   * What a page shows of a turn from its events as PROTOCOL.md says (tokens join the open block
   * of their mode, a tool call or the turn's changes is a block; {@code turnResumed} drops the blocks from
   * {@code fromBlock} and applies the events after its {@code lastSeq}): each block's text, and
   * how many events it applied twice (the same seq after the last it applied).
   */
  static List<String> view(List<JsonNode> events, int[] repeats) {
    return view(new ArrayList<>(), null, -1, events, repeats);
  }

  /**
   * As above, for a page that started watching with {@code snapshot} (the turn's blocks, its open
   * block and {@code lastSeq} there, then its events).
   */
  static List<String> view(JsonNode snapshot, String turnId, List<JsonNode> events,
      int[] repeats) {
    List<String> blocks = new ArrayList<>();
    for (JsonNode t : snapshot.path("turns")) {
      if (t.path("_id").asText().equals(turnId)) {
        for (JsonNode b : t.path("blocks")) {
          String mode = b.path("mode").asText();
          blocks.add(mode.equals("tool") ? "tool:" + b.path("content").path("callId").asText()
              : mode.equals("diff") ? "diff" : b.path("content").asText());
        }
      }
    }
    long last = Long.MAX_VALUE;
    String open = null;
    for (JsonNode l : snapshot.path("live")) {
      if (l.path("turnId").asText().equals(turnId)) {
        last = l.path("lastSeq").asLong();
        if (l.hasNonNull("openBlock")) {
          open = l.path("openBlock").path("mode").asText();
          blocks.add(l.path("openBlock").path("content").asText());
        }
      }
    }
    return view(blocks, open, last, events, repeats);
  }

  private static List<String> view(List<String> blocks, String mode, long last,
      List<JsonNode> events, int[] repeats) {
    for (JsonNode l : events) {
      String name = l.path("name").asText();
      JsonNode p = l.path("payload");
      if (name.equals(Protocol.TURN_RESUMED)) {
        blocks = new ArrayList<>(blocks.subList(0, Math.min(blocks.size(),
            p.path("fromBlock").asInt())));
        mode = null;
        last = p.path("lastSeq").asLong();
        continue;
      }
      if (!p.has("seq") || name.equals(Protocol.WORK_ORDER_COMPLETE)) {
        continue;
      }
      long seq = p.path("seq").asLong();
      if (seq <= last) {
        repeats[0]++;
        continue;
      }
      last = seq;
      String m = name.equals(Protocol.THINKING) ? "thinking"
          : name.equals(Protocol.RESPONSE) ? "responding" : null;
      if (m != null && m.equals(mode)) {
        blocks.set(blocks.size() - 1, blocks.get(blocks.size() - 1) + p.path("data").asText());
      } else if (m != null) {
        mode = m;
        blocks.add(p.path("data").asText());
      } else if (name.equals(Protocol.TOOL_CALL)) {
        mode = null;
        blocks.add("tool:" + p.path("call").path("callId").asText());
      } else if (name.equals(Protocol.TURN_CHANGES)) {
        mode = null;
        blocks.add("diff");
      }
    }
    return blocks;
  }

  static List<String> stored(ChatTurn t) {
    List<String> out = new ArrayList<>();
    for (TurnBlock b : t.blocks()) {
      out.add(b instanceof TurnBlock.Tool tool ? "tool:" + tool.content().callId()
          : b instanceof TurnBlock.Diff ? "diff" : CrashSuiteTest.ServerKill.text(b));
    }
    return out;
  }

  @Test
  void threeNodesServeTurnsAndNoKillLosesOrDoublesAnything() throws Exception {
    redis = new TestRedis();
    closeables.add(redis);
    llm = new CrashSuiteTest.ScriptLlm(tmp);
    closeables.add(llm);
    int mongoPort = freePort();
    start("mongo", java().command(List.of(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-cp", System.getProperty("java.class.path"),
        MongoProcess.class.getName(), String.valueOf(mongoPort))), "listening");
    mongoUri = "mongodb://127.0.0.1:" + mongoPort;
    Accounts.Issued ada;
    ChatSession session;
    ChatStore store = MongoChatStore.builder().connectionString(mongoUri).build();
    closeables.add(store);
    ada = Accounts.create(store, "ada");
    Project project = new Project(Ids.next(), ada.user().id(), "Greeter", "greeter",
        SampleProject.create(tmp.resolve("greeter")).toString(), Instant.now());
    store.createProject(project);
    session = new ChatSession(Ids.next(), ada.user().id(), project.id(), "Chat", null,
        Instant.now());
    store.createSession(session);

    int[] ports = {freePort(), freePort(), freePort()};
    Process a = node("a", ports[0]);
    node("b", ports[1]);
    Process c = node("c", ports[2]);
    Path ws = tmp.resolve("ws");
    ProcessBuilder drone = java("drone", "--server", "http://127.0.0.1:" + ports[0] + "/,"
        + "http://127.0.0.1:" + ports[1] + "/,http://127.0.0.1:" + ports[2] + "/",
        "--workspace", ws.toString(), "--hostname", "cluster-box", "--sandbox", "full-access");
    drone.environment().put("GADGET_DRONE_TOKEN", ada.droneToken());
    start("drone", drone, "[drone] connected to ");
    List<JsonNode> onB = stockPage(ports[1], ada.pageToken(), session.id());
    CrashSuiteTest.Page onC = new CrashSuiteTest.Page(ports[2], ada.pageToken(), session.id());
    closeables.add(onC.client);

    // one turn, prompted on C, run on A, watched on B and C
    String first = onC.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", "turn-0")).path("turnId").asText();
    assertThat(first).isNotEmpty();
    await("the first turn's end on B", () -> events(onB, first).stream()
        .anyMatch(l -> l.path("name").asText().equals(Protocol.WORK_ORDER_COMPLETE)));
    await("the first turn's end on C", () -> onC.ended(first));
    ChatTurn done = store.findTurn(first).orElseThrow();
    assertThat(done.status()).isEqualTo(TurnStatus.FINISHED);
    int[] twice = new int[1];
    assertThat(view(events(onB, first), twice)).containsExactlyElementsOf(stored(done));
    assertThat(twice[0]).as("events the stock page got twice").isZero();
    assertThat(onC.finishedBlocks(first)).allMatch(b -> b.storedIn(done));

    // the next: node A (the drone's) killed mid-stream
    String second = onC.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", "turn-1")).path("turnId").asText();
    await("the second turn streaming", () -> llm.written(1, 1) >= 6);
    List<String> seenBefore = view(events(onB, second), new int[1]);
    a.destroyForcibly();
    a.waitFor(30, TimeUnit.SECONDS);
    try {
      await("the second turn's end on B", () -> events(onB, second).stream()
          .anyMatch(l -> l.path("name").asText().equals(Protocol.WORK_ORDER_COMPLETE)));
      await("the second turn's end on C", () -> onC.ended(second));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\ndrone:\n" + tail(tmp.resolve("drone.log"))
          + "\nnode b:\n" + tail(tmp.resolve("server-b.log")) + "\nnode c:\n"
          + tail(tmp.resolve("server-c.log")), e);
    }
    ChatTurn survived = store.findTurn(second).orElseThrow();
    assertThat(survived.status()).as("the turn whose node was killed").isEqualTo(
        TurnStatus.FINISHED);
    int[] again = new int[1];
    List<String> shown = view(events(onB, second), again);
    assertThat(shown).containsExactlyElementsOf(stored(survived));
    assertThat(again[0]).as("events the stock page applied twice").isZero();
    for (int i = 0; i < seenBefore.size(); i++) {
      assertThat(shown.get(i)).as("block %d the page showed before the kill", i)
          .startsWith(seenBefore.get(i));
    }
    assertThat(CrashSuiteTest.repeats(survived)).as("repeated model output").isZero();
    assertThat(onC.finishedBlocks(second)).isNotEmpty().allMatch(b -> b.storedIn(survived));
    assertThat(Files.readAllLines(ws.resolve("greeter").resolve("runs-1.log")))
        .as("the turn's command runs").hasSize(1);
    assertThat(read(tmp.resolve("server-b.log")) + read(tmp.resolve("server-c.log")))
        .contains("on a node that left the cluster");

    // Redis killed mid-turn and started again (empty: no persistence): the turn goes on, and
    // the page on C, which gets it through Redis, misses nothing of it
    String third = onC.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", "turn-2")).path("turnId").asText();
    await("the third turn streaming", () -> llm.written(2, 1) >= 4);
    redis.kill();
    await("the third turn streaming on without Redis", () -> llm.written(2, 1) >= 10);
    await("node b's /metrics to say Redis is away", () -> metrics(ports[1])
        .contains("gadget_cluster_reachable 0.0"));
    redis.start();
    await("node b's /metrics to say Redis is back", () -> metrics(ports[1])
        .contains("gadget_cluster_reachable 1.0"));
    await("the third turn's end on C", () -> onC.ended(third));
    ChatTurn afterRedis = store.findTurn(third).orElseThrow();
    assertThat(afterRedis.status()).isEqualTo(TurnStatus.FINISHED);
    // (that page does not listen to turnChanges: every other block, whole)
    assertThat(onC.finishedBlocks(third)).hasSize((int) afterRedis.blocks().stream()
        .filter(b -> !(b instanceof TurnBlock.Diff)).count())
        .allMatch(b -> b.storedIn(afterRedis));
    List<Long> seqs = onC.events(third).stream().filter(e -> e.payload().has("seq"))
        .map(e -> e.payload().get("seq").asLong()).toList();
    assertThat(seqs).as("the seqs page C got").isSorted().doesNotHaveDuplicates();
    assertThat(read(tmp.resolve("server-b.log"))).as("node b's log")
        .contains("this node goes on serving its own pages and drones until it is back")
        .contains("answers again");

    // the node of page C (which also took the prompt) killed mid-turn: a page that starts
    // watching on another node (node A started again), not the drone's, gets all of it
    node("a2", ports[0]);
    String fourth = onC.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", "turn-3")).path("turnId").asText();
    await("the fourth turn streaming", () -> llm.written(3, 1) >= 6);
    String sawOnC = CrashSuiteTest.Page.openTokens(onC.events(fourth)).stream()
        .map(o -> (String) o[1]).reduce("", String::concat);
    c.destroyForcibly();
    onC.client.close();
    List<JsonNode> onA2 = stockPage(ports[0], ada.pageToken(), session.id());
    await("the fourth turn's end on the new page", () -> events(onA2, fourth).stream()
        .anyMatch(l -> l.path("name").asText().equals(Protocol.WORK_ORDER_COMPLETE))
        || store.findTurn(fourth).orElseThrow().status() != TurnStatus.PROCESSING);
    ChatTurn last = store.findTurn(fourth).orElseThrow();
    assertThat(last.status()).isEqualTo(TurnStatus.FINISHED);
    JsonNode snapshot = onA2.stream().filter(l -> l.path("event").asText().equals("snapshot"))
        .findFirst().orElseThrow().path("snapshot");
    boolean midTurn = false;
    for (JsonNode l : snapshot.path("live")) {
      midTurn |= l.path("turnId").asText().equals(fourth);
    }
    System.out.println("cluster test: the page on node a2 started watching the fourth turn "
        + (midTurn ? "mid-turn" : "after its end") + "; page C had seen " + sawOnC.length()
        + " characters of its open block when its node was killed");
    int[] doubled = new int[1];
    await("the new page's view of the fourth turn", () -> view(snapshot, fourth,
        events(onA2, fourth), new int[1]).equals(stored(store.findTurn(fourth).orElseThrow())));
    view(snapshot, fourth, events(onA2, fourth), doubled);
    assertThat(doubled[0]).as("events the new page applied twice").isZero();
    assertThat(stored(last).get(0)).as("what page C saw before its node died")
        .startsWith(sawOnC);
  }
}
