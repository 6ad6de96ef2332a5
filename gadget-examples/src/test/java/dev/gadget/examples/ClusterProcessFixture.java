package dev.gadget.examples;

import static dev.gadget.examples.GadgetProcesses.java;
import static dev.gadget.examples.GadgetProcesses.read;
import static dev.gadget.examples.GadgetProcesses.tail;
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
import dev.gadget.core.protocol.EventTurns;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.store.mongo.MongoChatStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * What the cluster's process tests share: a real redis-server, a MongoDB-protocol server in a
 * process of its own holding ada's chat, the scripted LLM, {@code gadget server --cluster}
 * nodes and a drone as processes, pages on the stock socket.io-client, and what a page shows
 * of a turn from its events as PROTOCOL.md says. Every process is killed after each test.
 */
abstract class ClusterProcessFixture {
  private static final Path WEB_LIBS =
      Path.of("src/main/web-libs/node_modules").toAbsolutePath();

  @TempDir protected Path tmp;
  protected final List<Process> processes = new ArrayList<>();
  protected final List<AutoCloseable> closeables = new ArrayList<>();
  private final String secretKey = Base64.getEncoder().encodeToString(new byte[32]);
  protected ScriptLlm llm;
  protected TestRedis redis;
  protected String mongoUri;
  protected ChatStore store;
  protected Accounts.Issued ada;
  protected ChatSession session;

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

  private final Map<String, Integer> peerPorts = new java.util.concurrent.ConcurrentHashMap<>();

  protected static int freePort() throws IOException {
    return dev.gadget.core.TestPorts.free(); // not an ephemeral port another socket may take
  }

  protected Process start(String name, ProcessBuilder pb, String ready) throws IOException {
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

  /**
   * Node {@code id} on {@code port}, pushing events to the other nodes from a peer port of its
   * own (the same one when it starts again).
   */
  protected Process node(String id, int port) throws IOException {
    int peerPort = peerPorts.computeIfAbsent(id, k -> {
      try {
        return freePort();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    return start("server-" + id, java("server", "--port", String.valueOf(port), "--mongo",
        mongoUri, "--cluster", redis.uri(), "--node-id", id, "--cluster-peer",
        "127.0.0.1:" + peerPort, "--llm", "openai", "--base-url", llm.v1(), "--model", "m",
        "--drone-grace-period", "10", "--metrics"), "  Drones:");
  }

  /** A page on the stock socket.io-client: every line it printed, as JSON. */
  protected List<JsonNode> stockPage(int port, String token, String sessionId) throws IOException {
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

  protected static String metrics(int port) {
    try {
      return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
              java.net.URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException | InterruptedException e) {
      return "";
    }
  }

  /** The stock page's events of {@code turnId}, in order. */
  protected static List<JsonNode> events(List<JsonNode> lines, String turnId) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode l : lines) {
      String id = EventTurns.turnId(l.path("name").asText(), l.path("payload"));
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
    long last = -1; // a snapshot from before the turn: every event of it is new
    for (JsonNode t : snapshot.path("turns")) {
      if (t.path("_id").asText().equals(turnId)) {
        last = Long.MAX_VALUE;
        for (JsonNode b : t.path("blocks")) {
          String mode = b.path("mode").asText();
          blocks.add(mode.equals("tool") ? "tool:" + b.path("content").path("callId").asText()
              : mode.equals("diff") ? "diff" : b.path("content").asText());
        }
      }
    }
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
          : b instanceof TurnBlock.Diff ? "diff" : StoredTurns.text(b));
    }
    return out;
  }

  /** Redis, the scripted LLM, the store in a process of its own, and ada's chat in it. */
  protected void seed() throws Exception {
    redis = new TestRedis();
    closeables.add(redis);
    llm = new ScriptLlm(tmp);
    closeables.add(llm);
    int mongoPort = freePort();
    start("mongo", java().command(List.of(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-cp", System.getProperty("java.class.path"),
        MongoProcess.class.getName(), String.valueOf(mongoPort))), "listening");
    mongoUri = "mongodb://127.0.0.1:" + mongoPort;
    store = MongoChatStore.builder().connectionString(mongoUri).build();
    closeables.add(store);
    ada = Accounts.create(store, "ada");
    Project project = new Project(Ids.next(), ada.user().id(), "Greeter", "greeter",
        SampleProject.create(tmp.resolve("greeter")).toString(), Instant.now());
    store.createProject(project);
    session = new ChatSession(Ids.next(), ada.user().id(), project.id(), "Chat", null,
        Instant.now());
    store.createSession(session);
  }

  /** A drone on {@code ws} that knows every node of {@code ports}, first to last. */
  protected Process drone(Path ws, int... ports) throws IOException {
    StringBuilder servers = new StringBuilder();
    for (int p : ports) {
      servers.append(servers.length() == 0 ? "" : ",").append("http://127.0.0.1:").append(p)
          .append('/');
    }
    ProcessBuilder drone = java("drone", "--server", servers.toString(),
        "--workspace", ws.toString(), "--hostname", "cluster-box", "--sandbox", "full-access");
    drone.environment().put("GADGET_DRONE_TOKEN", ada.droneToken());
    return start("drone", drone, "[drone] connected to ");
  }

}
