package dev.gadget.examples;

import static dev.gadget.examples.GadgetProcesses.java;
import static dev.gadget.examples.GadgetProcesses.read;
import static dev.gadget.examples.GadgetProcesses.tail;
import static dev.gadget.examples.PageFixture.await;
import static dev.gadget.examples.StoredTurns.repeats;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.examples.CrashPage.Block;
import dev.gadget.examples.CrashPage.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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

  enum Phase { STREAMING, COMMAND, AFTER_TOOL, END }

  enum Target { DRONE, SERVER, NONE }

  record Plan(Target target, Phase phase) {}

  @TempDir Path tmp;
  ScriptLlm llm;
  int httpPort;
  int socketPort;
  Process server;
  Process drone;
  CrashPage page;
  int starts;
  Path droneLog;
  Path serverLog;
  final List<Process> processes = new ArrayList<>();
  final List<CrashPage> pages = new ArrayList<>();

  @AfterEach
  void stopAll() throws Exception {
    for (CrashPage p : pages) {
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
    page = new CrashPage(socketPort, ada.pageToken(), session.id());
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
      int at = 2 + random.nextInt(ScriptLlm.TOKENS - 4);
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
        page = new CrashPage(socketPort, ada.pageToken(), session.id());
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
    CrashPage last = new CrashPage(socketPort, ada.pageToken(), session.id());
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
        for (CrashPage p : pages) {
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
                  ? "=" + StoredTurns.text(b) : ""))
                  .toList() + "; the page saw " + CrashPage.openTokens(k.events()).stream()
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
    // restarted on the same ports after each kill: not ephemeral ports another socket may take
    httpPort = dev.gadget.core.TestPorts.free();
    socketPort = dev.gadget.core.TestPorts.free();
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

  /** What a page had seen of a turn when its server was killed. */
  record ServerKill(String turnId, List<CrashPage.Event> events, long at, Plan plan) {
    /** Characters of the last open block the store lacks, and how long ago the first arrived. */
    long[] lost(ChatTurn t) {
      List<Object[]> open = CrashPage.openTokens(events);
      if (open.isEmpty()) {
        return new long[] {0, 0};
      }
      int seq = (int) open.get(0)[0];
      String stored = seq < t.blocks().size() && !(t.blocks().get(seq) instanceof TurnBlock.Tool)
          ? StoredTurns.text(t.blocks().get(seq)) : "";
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
  }
}
