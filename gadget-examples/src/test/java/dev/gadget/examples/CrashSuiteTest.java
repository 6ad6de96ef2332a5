package dev.gadget.examples;

import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing lost, nothing twice: real {@code gadget server} and {@code gadget drone} processes
 * killed with SIGKILL at seeded random points of a turn (the model streaming, a command running,
 * right after a tool result, at the end), against an OpenAI-compatible HTTP server in this JVM
 * that streams each round slowly. Counts what was lost or repeated and prints the figures. A
 * killed server interrupts no turn: each turn it ran finishes, and holds every character a page
 * had been shown of it before the kill (its drone sends the turn again, docs/CLUSTER.md).
 */
class CrashSuiteTest {
  static final long SEED = 12;
  /** Kills of each kind; a longer run: {@code -Dgadget.crash.serverKills=20} (docs/CLUSTER.md). */
  static final int DRONE_KILLS = Integer.getInteger("gadget.crash.droneKills", 30);
  static final int SERVER_KILLS = Integer.getInteger("gadget.crash.serverKills", 15);
  static final int CLEAN_TURNS = 3;
  static final int TOKENS = 16;
  static final long TOKEN_MS = 30;

  enum Phase { STREAMING, COMMAND, AFTER_TOOL, END }

  enum Target { DRONE, SERVER, NONE }

  record Plan(Target target, Phase phase) {}

  @TempDir Path tmp;
  ScriptLlm llm;
  int httpPort;
  int socketPort;
  Process server;
  Process drone;
  Page page;
  int starts;
  Path droneLog;
  Path serverLog;
  final List<Process> processes = new ArrayList<>();
  final List<Page> pages = new ArrayList<>();

  @AfterEach
  void stopAll() throws Exception {
    for (Page p : pages) {
      p.client.close();
    }
    for (Process p : processes) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    if (llm != null) {
      llm.close();
    }
  }

  @Test
  void killedServersAndDronesLoseNothingAndRepeatNothing() throws Exception {
    llm = new ScriptLlm(tmp);
    pickPorts();
    Path data = tmp.resolve("data");
    Accounts.Issued ada;
    ChatSession session;
    try (Stores.Opened store = Stores.embedded(data)) {
      ada = Accounts.create(store.store(), "ada");
      Instant now = Instant.now();
      Project project = new Project(Ids.next(), ada.user().id(), "Greeter", "greeter",
          SampleProject.create(tmp.resolve("greeter")).toString(), now);
      store.store().createProject(project);
      session = new ChatSession(Ids.next(), ada.user().id(), project.id(), "Chat", null, now);
      store.store().createSession(session);
    }
    Path ws = tmp.resolve("ws");
    startServer(data);
    startDrone(ws, ada);
    page = new Page(socketPort, ada.pageToken(), session.id());
    pages.add(page);

    List<Plan> plans = new ArrayList<>();
    for (int i = 0; i < DRONE_KILLS; i++) {
      plans.add(new Plan(Target.DRONE, Phase.values()[i % 4]));
    }
    for (int i = 0; i < SERVER_KILLS; i++) {
      plans.add(new Plan(Target.SERVER, Phase.values()[i % 4]));
    }
    for (int i = 0; i < CLEAN_TURNS; i++) {
      plans.add(new Plan(Target.NONE, Phase.END));
    }
    Random random = new Random(SEED);
    Collections.shuffle(plans, random);

    Map<Integer, String> turnIds = new HashMap<>();
    Set<Integer> commandKills = new HashSet<>();
    int survivors = 0;
    List<Long> lostMillis = new ArrayList<>();
    List<Integer> lostChars = new ArrayList<>();
    List<ServerKill> serverKills = new ArrayList<>();
    List<String> serverInterrupted = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int n = 0; n < plans.size(); n++) {
      Plan plan = plans.get(n);
      if (plan.target() == Target.DRONE && plan.phase() == Phase.COMMAND) {
        llm.longCommands.add(n); // it would outlive the test if it outlived its drone
      }
      String turnId = submit(n);
      turnIds.put(n, turnId);
      int turn = n;
      int at = 2 + random.nextInt(TOKENS - 4);
      try {
        switch (plan.phase()) {
          case STREAMING -> await("turn " + n + " streaming", () -> llm.written(turn, 1) >= at);
          case COMMAND -> await("turn " + n + "'s command running",
              () -> Files.exists(project(ws).resolve("cmd-" + turn + ".pid")));
          case AFTER_TOOL -> await("turn " + n + "'s tool result",
              () -> page.has(turnId, Protocol.TOOL_CALL));
          case END -> await("turn " + n + "'s last round", () -> llm.done(turn, 2));
        }
      } catch (AssertionError e) {
        throw new AssertionError(plan + " of turn " + n + ": " + e.getMessage() + "\n"
            + "events: " + page.events(turnId).stream().map(Event::name).toList()
            + "\ndrone:\n" + tail(droneLog) + "\nserver:\n" + tail(serverLog), e);
      }
      if (plan.target() == Target.DRONE) {
        drone.destroyForcibly();
        drone.waitFor(30, TimeUnit.SECONDS);
        if (plan.phase() == Phase.COMMAND) {
          commandKills.add(n);
          if (!awaitDead(project(ws).resolve("cmd-" + n + ".pid"))) {
            survivors++;
          }
        }
        startDrone(ws, ada);
        await("turn " + n + " to end", () -> page.ended(turnId));
      } else if (plan.target() == Target.SERVER) {
        ServerKill k = new ServerKill(turnId, page.events(turnId), System.nanoTime(), plan);
        server.destroyForcibly();
        server.waitFor(30, TimeUnit.SECONDS);
        serverKills.add(k);
        page.client.close();
        startServer(data);
        page = new Page(socketPort, ada.pageToken(), session.id());
        pages.add(page);
      } else {
        await("turn " + n + " to end", () -> page.ended(turnId));
      }
    }
    // a turn whose server was killed last goes on: the drone is busy until it ends
    String lastTurn = turnIds.get(plans.size() - 1);
    await("the last turn to end", () -> page.ended(lastTurn)
        || !"processing".equals(page.snapshotStatuses().getOrDefault(lastTurn, "processing")));
    long runMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

    // User mode survives kill -9 of its drone.
    JsonNode drones = page.request(Protocol.LIST_DRONES, Map.of());
    String droneId = drones.get("drones").get(0).get("_id").asText();
    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "user")).get("ok").asBoolean()).isTrue();
    drone.destroyForcibly();
    drone.waitFor(30, TimeUnit.SECONDS);
    Path log = startDrone(ws, ada);
    await("the drone back", () -> read(log).contains("[drone] connected to "));
    JsonNode refused = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session.id(), "prompt", "in user mode?"));
    boolean userModeKept = "every drone's workspace is in user mode"
        .equals(refused.path("error").asText());
    Page last = new Page(socketPort, ada.pageToken(), session.id());
    pages.add(last);

    server.destroy();
    server.waitFor(30, TimeUnit.SECONDS);
    int lostTurns = 0;
    int lostBlocks = 0;
    int repeated = 0;
    int ranTwice = 0;
    int untold = 0;
    int finishedBlocks = 0;
    try (Stores.Opened store = Stores.embedded(data)) {
      boolean sessionKept = store.store().findSession(session.id()).isPresent();
      assertThat(sessionKept).as("the chat session").isTrue();
      for (Map.Entry<Integer, String> e : turnIds.entrySet()) {
        ChatTurn t = store.store().findTurn(e.getValue()).orElse(null);
        if (t == null) {
          lostTurns++;
          continue;
        }
        repeated += repeats(t);
        for (Page p : pages) {
          List<Block> seen = p.finishedBlocks(t.id());
          finishedBlocks += seen.size();
          for (Block b : seen) {
            if (!b.storedIn(t)) {
              lostBlocks++;
            }
          }
        }
        Path runs = project(ws).resolve("runs-" + e.getKey() + ".log");
        if (Files.exists(runs) && Files.readAllLines(runs).size() > 1) {
          ranTwice++;
        }
        boolean told = pages.stream().anyMatch(p -> p.ended(t.id()) || !"processing".equals(
            p.snapshotStatuses().getOrDefault(t.id(), "processing")));
        if (!told || !t.status().isTerminal()) {
          untold++;
        }
      }
      for (ServerKill k : serverKills) {
        ChatTurn t = store.store().findTurn(k.turnId()).orElseThrow();
        long[] lost = k.lost(t);
        lostChars.add((int) lost[0]);
        lostMillis.add(lost[1]);
        if (lost[0] > 0) {
          System.out.println("  server kill lost " + lost[0] + " chars of turn " + t.id() + " ("
              + k.plan() + "): stored " + t.blocks().stream().map(b -> b.seq() + ":"
              + b.mode() + (b instanceof TurnBlock.Thinking || b instanceof TurnBlock.Responding
                  ? "=" + ServerKill.text(b) : ""))
                  .toList() + "; the page saw " + Page.openTokens(k.events()).stream()
                  .map(o -> o[0] + ":" + o[1]).toList());
          try (java.util.stream.Stream<Path> logs = Files.list(tmp)) {
            for (Path f : logs.filter(f -> f.getFileName().toString().matches(
                "(server|drone).*\\.log")).sorted().toList()) {
              Files.readAllLines(f).stream().filter(l -> l.contains(t.id())
                  || l.contains("sent again") || l.contains("events of turn"))
                  .forEach(l -> System.out.println("    " + f.getFileName() + ": " + l));
            }
          }
        }
        if (t.status() != TurnStatus.FINISHED) {
          serverInterrupted.add(k.turnId() + " " + t.status() + ": " + t.error());
        }
      }
    }
    System.out.printf("crash suite (seed %d): %d turns, %d drone kills (%d during a command), "
            + "%d server kills, %d s%n", SEED, turnIds.size(), DRONE_KILLS, commandKills.size(),
        SERVER_KILLS, runMillis / 1000);
    System.out.printf("  lost: %d sessions, %d turns, %d of %d finished blocks; repeated "
            + "model output in %d stored turns; commands run twice: %d, left running: %d; "
            + "turns whose end no page was told: %d; user mode kept: %s%n", 0, lostTurns,
        lostBlocks, finishedBlocks, repeated, ranTwice, survivors, untold, userModeKept);
    System.out.printf("  server kills: %d turns not finished; streamed text a page saw that "
            + "the store lacks: max %d chars / %d ms%n", serverInterrupted.size(),
        lostChars.stream().mapToInt(i -> i).max().orElse(0),
        lostMillis.stream().mapToLong(l -> l).max().orElse(0));
    assertThat(lostTurns).as("turns lost").isZero();
    assertThat(lostBlocks).as("finished blocks lost").isZero();
    assertThat(repeated).as("stored turns with repeated model output").isZero();
    assertThat(ranTwice).as("commands run twice").isZero();
    assertThat(survivors).as("commands left running after their drone died").isZero();
    assertThat(untold).as("turns whose end no page was told").isZero();
    assertThat(userModeKept).as("user mode kept across a restart").isTrue();
    // a server's kill -9 interrupts no turn and loses nothing a page saw
    assertThat(serverInterrupted).as("turns a server kill kept from finishing").isEmpty();
    assertThat(lostChars).as("characters a page saw that the store lacks, per server kill")
        .allMatch(n -> n == 0);
  }

  /** Tokens of the model's rounds (t12r1.003) that a stored turn holds twice, outside
   *  superseded blocks: 1 if any, else 0. */
  static int repeats(ChatTurn t) {
    Set<String> seen = new HashSet<>();
    for (TurnBlock b : t.blocks()) {
      if (b.isSuperseded() || !(b instanceof TurnBlock.Responding r)) {
        continue;
      }
      for (String token : r.content().split("\\s+")) {
        if (!token.isEmpty() && !seen.add(token)) {
          return 1;
        }
      }
    }
    return 0;
  }

  private static Path project(Path ws) {
    return ws.resolve("greeter");
  }

  private String submit(int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
          Map.of("sessionId", page.sessionId, "prompt", "turn-" + n));
      if (reply.hasNonNull("turnId")) {
        return reply.get("turnId").asText();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("turn " + n + " was not accepted: " + reply);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // a drone is coming back
    }
  }

  /** Whether the process whose pid the file holds ended within 10 s. */
  private static boolean awaitDead(Path pidFile) throws IOException {
    long pid = Long.parseLong(Files.readString(pidFile).trim());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
    return true;
  }

  private void pickPorts() throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      try (ServerSocket a = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        int p = a.getLocalPort();
        try (ServerSocket b = new ServerSocket(p + 1, 1, InetAddress.getLoopbackAddress())) {
          httpPort = p;
          socketPort = p + 1;
          return;
        } catch (IOException busy) {
          // try another pair
        }
      }
    }
    throw new IOException("no two free ports in a row");
  }

  static ProcessBuilder java(String... args) {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        Main.class.getName()));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true);
  }

  private void startServer(Path data) throws IOException {
    Path log = tmp.resolve("server-" + (++starts) + ".log");
    serverLog = log;
    ProcessBuilder pb = java("server", "--port", String.valueOf(httpPort), "--socket-port",
        String.valueOf(socketPort), "--data-dir", data.toString(), "--llm", "openai",
        "--base-url", llm.v1(), "--model", "m").redirectOutput(log.toFile());
    pb.environment().put("GADGET_LLM_API_KEY", "sk-crash-suite");
    server = pb.start();
    processes.add(server);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!read(log).contains("  Drones:")) {
      if (!server.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("the server did not start; it printed:\n" + read(log));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  private Path startDrone(Path ws, Accounts.Issued ada) throws IOException {
    Path log = tmp.resolve("drone-" + (++starts) + ".log");
    droneLog = log;
    ProcessBuilder pb = java("drone", "--server", "http://127.0.0.1:" + httpPort + "/",
        "--workspace", ws.toString(), "--hostname", "crash-box",
        // host pids in the commands' files: the process-tree guard without a sandbox
        "--sandbox", "full-access").redirectOutput(log.toFile());
    pb.environment().put("GADGET_DRONE_TOKEN", ada.droneToken());
    drone = pb.start();
    processes.add(drone);
    return log;
  }

  static String tail(Path log) {
    String all = read(log);
    return all.substring(Math.max(0, all.length() - 3000));
  }

  static String read(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** An event a page received, with when. */
  record Event(String name, JsonNode payload, long at) {}

  /** A finished block as a page assembled it: its position, mode and text (or call id). */
  record Block(int seq, String mode, String content) {
    boolean storedIn(ChatTurn t) {
      if (seq >= t.blocks().size()) {
        return false;
      }
      TurnBlock b = t.blocks().get(seq);
      return b.seq() == seq && b.mode().equals(mode) && content.equals(
          b instanceof TurnBlock.Tool tool ? tool.content().callId()
              : b instanceof TurnBlock.Thinking th ? th.content()
              : ((TurnBlock.Responding) b).content());
    }
  }

  /** What a page had seen of a turn when its server was killed. */
  record ServerKill(String turnId, List<Event> events, long at, Plan plan) {
    /** Characters of the last open block the store lacks, and how long ago the first arrived. */
    long[] lost(ChatTurn t) {
      List<Object[]> open = Page.openTokens(events);
      if (open.isEmpty()) {
        return new long[] {0, 0};
      }
      int seq = (int) open.get(0)[0];
      String stored = seq < t.blocks().size() && !(t.blocks().get(seq) instanceof TurnBlock.Tool)
          ? text(t.blocks().get(seq)) : "";
      int have = 0;
      for (Object[] tok : open) {
        String data = (String) tok[1];
        if (stored.length() >= have + data.length()) {
          have += data.length();
          continue;
        }
        int total = open.stream().mapToInt(o -> ((String) o[1]).length()).sum();
        return new long[] {total - have,
            TimeUnit.NANOSECONDS.toMillis(at - (long) tok[2])};
      }
      return new long[] {0, 0};
    }

    static String text(TurnBlock b) {
      return b instanceof TurnBlock.Thinking th ? th.content()
          : ((TurnBlock.Responding) b).content();
    }
  }

  /** A page: watches the session and records what it is sent. */
  static final class Page {
    final WebSocketTransportClient client;
    final Connection connection;
    final String sessionId;
    final List<Event> events = new CopyOnWriteArrayList<>();
    final JsonNode snapshot;

    Page(int socketPort, String token, String sessionId) {
      this.sessionId = sessionId;
      client = WebSocketTransportClient.builder()
          .uri(java.net.URI.create("http://127.0.0.1:" + socketPort)).reconnection(false).build();
      connection = client.connect(Protocol.PAGE_NAMESPACE,
          () -> GadgetJson.mapper().createObjectNode().put("token", token),
          new TransportClient.ClientListener() {});
      for (String e : List.of(Protocol.TURN_STARTED, Protocol.THINKING, Protocol.RESPONSE,
          Protocol.TOOL_CALL, Protocol.WORK_ORDER_COMPLETE, Protocol.BLOCKS_SUPERSEDED)) {
        connection.on(e, (args, ack) -> events.add(new Event(e, args.get(0), System.nanoTime())));
      }
      snapshot = request(Protocol.WATCH_SESSION, Map.of("sessionId", sessionId));
    }

    JsonNode request(String event, Map<String, ?> payload) {
      try {
        return connection.emitWithAck(event, Protocol.args(payload), Duration.ofSeconds(10))
            .get(10, TimeUnit.SECONDS).get(0);
      } catch (Exception e) {
        throw new AssertionError(event + " failed", e);
      }
    }

    Map<String, String> snapshotStatuses() {
      Map<String, String> out = new HashMap<>();
      for (JsonNode t : snapshot.path("turns")) {
        out.put(t.get("_id").asText(), t.get("status").asText());
      }
      return out;
    }

    List<Event> events(String turnId) {
      List<Event> out = new ArrayList<>();
      for (Event e : events) {
        JsonNode id = e.name().equals(Protocol.TURN_STARTED)
            ? e.payload().path("turn").path("_id") : e.payload().path("turnId");
        if (turnId.equals(id.asText())) {
          out.add(e);
        }
      }
      return out;
    }

    boolean has(String turnId, String name) {
      return events(turnId).stream().anyMatch(e -> e.name().equals(name));
    }

    boolean ended(String turnId) {
      return has(turnId, Protocol.WORK_ORDER_COMPLETE);
    }

    /** The blocks this page saw finished, if it watched the turn from its start. */
    List<Block> finishedBlocks(String turnId) {
      List<Event> es = events(turnId);
      List<Block> out = new ArrayList<>();
      if (es.isEmpty() || !es.get(0).name().equals(Protocol.TURN_STARTED)) {
        return out;
      }
      String mode = null;
      StringBuilder text = new StringBuilder();
      for (Event e : es) {
        String m = e.name().equals(Protocol.THINKING) ? "thinking"
            : e.name().equals(Protocol.RESPONSE) ? "responding" : null;
        if (m != null && m.equals(mode)) {
          text.append(e.payload().get("data").asText());
          continue;
        }
        if (mode != null && !e.name().equals(Protocol.TURN_STARTED)) {
          out.add(new Block(out.size(), mode, text.toString()));
          mode = null;
          text.setLength(0);
        }
        if (m != null) {
          mode = m;
          text.append(e.payload().get("data").asText());
        } else if (e.name().equals(Protocol.TOOL_CALL)) {
          out.add(new Block(out.size(), "tool", e.payload().get("call").get("callId").asText()));
        }
      }
      return out;
    }

    /** The tokens of the block still open at the end of {@code events}: {seq, data, at}. */
    static List<Object[]> openTokens(List<Event> events) {
      List<Object[]> open = new ArrayList<>();
      String mode = null;
      int closed = 0;
      for (Event e : events) {
        if (e.name().equals(Protocol.TURN_STARTED)) {
          continue;
        }
        String m = e.name().equals(Protocol.THINKING) ? "thinking"
            : e.name().equals(Protocol.RESPONSE) ? "responding" : null;
        if (m != null && m.equals(mode)) {
          open.add(new Object[] {closed, e.payload().get("data").asText(), e.at()});
          continue;
        }
        if (mode != null) {
          closed++;
          mode = null;
          open.clear();
        }
        if (m != null) {
          mode = m;
          open.add(new Object[] {closed, e.payload().get("data").asText(), e.at()});
        } else if (e.name().equals(Protocol.TOOL_CALL)) {
          closed++;
        }
      }
      return open;
    }
  }

  /**
   * An OpenAI-compatible server whose replies depend on the conversation: a turn's first round
   * streams {@link #TOKENS} numbered tokens and asks for a command; after the tool's result the
   * second round streams as many and stops. Each token comes {@link #TOKEN_MS} after the last.
   */
  static final class ScriptLlm implements AutoCloseable {
    private static final Pattern TURN = Pattern.compile("turn-(\\d+)");
    final HttpServer http;
    final Path dir;
    final Map<String, AtomicIntegerArray> progress = new ConcurrentHashMap<>();
    /** Turns whose command runs for 60 s: a drone is killed while it runs. */
    final Set<Integer> longCommands = ConcurrentHashMap.newKeySet();

    ScriptLlm(Path dir) throws IOException {
      this.dir = dir;
      http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
      http.setExecutor(Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "crash-suite-llm");
        t.setDaemon(true);
        return t;
      }));
      http.createContext("/", this::handle);
      http.start();
    }

    String v1() {
      return "http://127.0.0.1:" + http.getAddress().getPort() + "/v1";
    }

    int written(int turn, int round) {
      return progress.getOrDefault(turn + "/" + round, new AtomicIntegerArray(2)).get(0);
    }

    boolean done(int turn, int round) {
      return progress.getOrDefault(turn + "/" + round, new AtomicIntegerArray(2)).get(1) == 1;
    }

    private void handle(HttpExchange ex) throws IOException {
      if (ex.getRequestMethod().equals("GET")) { // no model list (the context window's)
        ex.sendResponseHeaders(404, -1);
        ex.close();
        return;
      }
      JsonNode body = GadgetJson.mapper().readTree(ex.getRequestBody());
      JsonNode messages = body.path("messages");
      int turn = -1;
      for (JsonNode m : messages) {
        Matcher matcher = TURN.matcher(m.path("content").asText(""));
        if (m.path("role").asText().equals("user") && matcher.find()) {
          turn = Integer.parseInt(matcher.group(1));
        }
      }
      String lastRole = messages.get(messages.size() - 1).path("role").asText();
      int round = lastRole.equals("tool") ? 2 : 1;
      AtomicIntegerArray p = new AtomicIntegerArray(2);
      progress.put(turn + "/" + round, p);
      ex.getResponseHeaders().add("Content-Type", "text/event-stream");
      ex.sendResponseHeaders(200, 0);
      try (OutputStream out = ex.getResponseBody()) {
        for (int i = 0; i < TOKENS; i++) {
          String token = String.format("t%dr%d.%03d ", turn, round, i);
          write(out, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + token
              + "\"},\"finish_reason\":null}]}");
          p.incrementAndGet(0);
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(TOKEN_MS)); // the stream's pace
        }
        if (round == 1) {
          String command = "echo run >> runs-" + turn + ".log; echo $$ > cmd-" + turn
              + ".pid; sleep " + (longCommands.contains(turn) ? "60" : "0.6");
          String args = GadgetJson.mapper().createObjectNode().put("command", command)
              .toString();
          write(out, "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
              + "\"id\":\"call_" + turn + "\",\"type\":\"function\",\"function\":{\"name\":"
              + "\"run_command\",\"arguments\":"
              + GadgetJson.mapper().getNodeFactory().textNode(args) + "}}]},"
              + "\"finish_reason\":null}]}");
          write(out, "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}");
        } else {
          write(out, "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
        }
        out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        p.set(1, 1);
      } catch (IOException e) {
        // the drone went away mid-stream
      }
    }

    private static void write(OutputStream out, String json) throws IOException {
      out.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
    }

    @Override
    public void close() {
      http.stop(0);
    }
  }
}
