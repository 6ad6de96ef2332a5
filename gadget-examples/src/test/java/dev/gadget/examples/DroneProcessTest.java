package dev.gadget.examples;

import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.drone.WorkspaceLock;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code gadget drone} as real processes (this JVM's java, the test class path, {@link Main}),
 * stopped with SIGTERM or killed with SIGKILL, against a server in this JVM whose LLM is a real
 * HTTP server streaming an OpenAI reply that does not end.
 */
class DroneProcessTest {
  static final String FIRST = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":"
      + "\"Hello\"},\"finish_reason\":null}]}\n\n";
  static final String MORE = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":"
      + "\" again\"},\"finish_reason\":null}]}\n\n";

  @TempDir Path tmp;
  LlmTestServer llm;
  Stores.Opened store;
  ServerApp app;
  Accounts.Issued ada;
  ChatSession session;
  final List<Process> processes = new ArrayList<>();

  @BeforeEach
  void startServer() throws Exception {
    llm = LlmTestServer.start();
    store = Stores.embedded(tmp.resolve("data"));
    // The default grace period (30 s): a turn must not end by waiting it out.
    app = ServerApp.builder().store(store.store()).port(0)
        .provider(new ProviderConfig(LlmClients.OPENAI, llm.v1().toString(), null, "m", null))
        .start();
    ada = Accounts.create(store.store(), "ada");
    Instant now = Instant.now();
    Project project = new Project(Ids.next(), ada.user().id(), "Greeter", "greeter",
        SampleProject.create(tmp.resolve("greeter")).toString(), now);
    store.store().createProject(project);
    session = new ChatSession(Ids.next(), ada.user().id(), project.id(), "Chat", null, now);
    store.store().createSession(session);
  }

  @AfterEach
  void stopAll() throws Exception {
    for (Process p : processes) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    app.close();
    store.close();
    llm.close();
  }

  /** A drone process on {@code workspace}; what it prints goes to {@code log}. */
  private Process drone(Path workspace, Path log) throws IOException {
    // host pids in the commands' files: the process-tree guard without a sandbox
    return drone(workspace, log, "full-access");
  }

  private Process drone(Path workspace, Path log, String sandbox) throws IOException {
    return drone(workspace, log, sandbox, Map.of());
  }

  /** A drone process with {@code env} added to its environment and {@code more} arguments. */
  private Process drone(Path workspace, Path log, String sandbox, Map<String, String> env,
      String... more) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), Main.class.getName(), "drone",
        "--server", app.pageUrl().toString(), "--workspace", workspace.toString(),
        "--hostname", "proc-box", "--sandbox", sandbox));
    cmd.addAll(List.of(more));
    ProcessBuilder pb = new ProcessBuilder(cmd)
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(env);
    pb.environment().put("GADGET_DRONE_TOKEN", ada.droneToken());
    Process p = pb.start();
    processes.add(p);
    return p;
  }

  private static String read(Path log) {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** Waits until the drone process says it is connected and free (a JVM start: up to 60 s). */
  private static void awaitConnected(Path log) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!(read(log).contains("[drone] connected to ")
        && read(log).contains("available: waiting for work"))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the drone did not connect within 60 s; it printed:\n"
            + read(log));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }

  private static int exitOf(Process p) throws InterruptedException {
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the process ended").isTrue();
    return p.exitValue();
  }

  /** A page of ada's watching the session, recording the turn's end. */
  private record Page(WebSocketTransportClient client, Connection connection,
      List<JsonNode> responses, CompletableFuture<JsonNode> end) {}

  private Page page() throws Exception {
    WebSocketTransportClient client = WebSocketTransportClient.builder().uri(app.socketUri())
        .build();
    Connection c = client.connect(Protocol.PAGE_NAMESPACE,
        () -> GadgetJson.mapper().createObjectNode().put("token", ada.pageToken()),
        new TransportClient.ClientListener() {});
    Page page = new Page(client, c, new CopyOnWriteArrayList<>(), new CompletableFuture<>());
    c.on(Protocol.RESPONSE, (args, ack) -> page.responses().add(args.get(0)));
    c.on(Protocol.WORK_ORDER_COMPLETE, (args, ack) -> page.end().complete(args.get(0)));
    c.emitWithAck(Protocol.WATCH_SESSION, Protocol.args(Map.of("sessionId", session.id())),
        Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
    return page;
  }

  /** Submits {@code prompt} in the session; the new turn's id. */
  private String submit(Page page, String prompt) throws Exception {
    JsonNode submitted = page.connection().emitWithAck(Protocol.SUBMIT_PROMPT, Protocol.args(
            Map.of("sessionId", session.id(), "prompt", prompt)),
        Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS).get(0);
    String turnId = submitted.path("turnId").asText();
    assertThat(turnId).as("%s", submitted).isNotEmpty();
    return turnId;
  }

  /** An OpenAI stream of {@code deltas} (each a choice's fields). */
  private static String sse(String... deltas) {
    StringBuilder sb = new StringBuilder();
    for (String d : deltas) {
      sb.append("data: {\"choices\":[{\"index\":0,").append(d).append("}]}\n\n");
    }
    return sb.append("data: [DONE]\n\n").toString();
  }

  @ParameterizedTest
  @ValueSource(strings = {"read-only", "workspace-write", "full-access"})
  void aCommandSeesNoneOfTheDronesSecretsAndTheModelIsToldOfItsSandbox(String sandbox)
      throws Exception {
    llm.enqueue(sse("\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\","
        + "\"type\":\"function\",\"function\":{\"name\":\"run_command\",\"arguments\":"
        + "\"{\\\"command\\\":\\\"env\\\"}\"}}]},\"finish_reason\":null",
        "\"delta\":{},\"finish_reason\":\"tool_calls\""))
        .header("Content-Type", "text/event-stream");
    llm.enqueue(sse("\"delta\":{\"content\":\"Done.\"},\"finish_reason\":\"stop\""))
        .header("Content-Type", "text/event-stream");
    String key = "llm-key-of-the-drone-4711";
    Path log = tmp.resolve("drone.log");
    drone(tmp.resolve("ws"), log, sandbox, Map.of("GADGET_LLM_API_KEY", key,
        "OPENAI_API_KEY", key + "-openai", "ANTHROPIC_API_KEY", key + "-anthropic",
        "TOKEN_COPY", ada.droneToken(), "BUILD_FLAVOUR", "fast"),
        "--sandbox-env", "TOKEN_COPY,BUILD_FLAVOUR");
    awaitConnected(log);
    Page page = page();
    try {
      submit(page, "show me your environment");
      assertThat(page.end().get(60, TimeUnit.SECONDS).path("status").asText())
          .isEqualTo("finished");
      String system = llm.takeRequest().json().at("/messages/0/content").asText();
      JsonNode messages = llm.takeRequest().json().path("messages");
      String env = messages.get(messages.size() - 1).path("content").asText();
      assertThat(env).startsWith("exit code: 0").contains("BUILD_FLAVOUR=fast", "PATH=")
          .doesNotContain(ada.droneToken()).doesNotContain(key).doesNotContain("GADGET_")
          .doesNotContain("TOKEN_COPY").doesNotContain("API_KEY");
      if (sandbox.equals("full-access")) {
        assertThat(system).doesNotContain("Sandbox:");
      } else {
        assertThat(system).contains("Sandbox: ", "there is no network", "private /tmp",
            "home directory is hidden");
      }
    } finally {
      page.client().close();
    }
  }

  @Test
  void sigtermMidTurnEndsTheTurnCancelledAtOnceAndTheRestartedDroneRecoversNothing()
      throws Exception {
    llm.enqueue(FIRST).thenEndlessly(List.of(MORE));
    Path ws = tmp.resolve("ws");
    Path log = tmp.resolve("drone-1.log");
    Process drone = drone(ws, log);
    awaitConnected(log);
    Page page = page();
    try {
      String turnId = submit(page, "talk until I stop you");
      await("the reply to stream", () -> page.responses().size() > 5);
      assertThat(ws.resolve(".gadget/work-order.json")).exists();

      drone.destroy(); // SIGTERM, as Ctrl-C's SIGINT: the JVM's shutdown hooks run

      // Within 20 s, while the server's grace period is 30 s: the drone said so itself.
      JsonNode end = page.end().get(20, TimeUnit.SECONDS);
      assertThat(end.get("turnId").asText()).isEqualTo(turnId);
      assertThat(end.get("status").asText()).isEqualTo("cancelled");
      assertThat(end.get("error").asText())
          .isEqualTo("the drone on proc-box was stopped while it ran this turn");
      assertThat(store.store().findTurn(turnId).orElseThrow().status())
          .isEqualTo(TurnStatus.CANCELLED);
      exitOf(drone);
      assertThat(read(log)).contains("ended: cancelled (the drone on proc-box was stopped");
      assertThat(ws.resolve(".gadget/work-order.json")).as("the server has the turn's end")
          .doesNotExist();

      Path log2 = tmp.resolve("drone-2.log");
      Process again = drone(ws, log2);
      awaitConnected(log2);
      assertThat(read(log2)).doesNotContainIgnoringCase("crash");
      again.destroy();
      exitOf(again);
    } finally {
      page.client().close();
    }
  }

  @Test
  void aSecondDroneOnAWorkspaceExitsNamingTheHolderAndAKilledHolderBlocksNothing()
      throws Exception {
    Path ws = tmp.resolve("ws");
    Path log1 = tmp.resolve("drone-1.log");
    Process first = drone(ws, log1);
    awaitConnected(log1);

    Path log2 = tmp.resolve("drone-2.log");
    Process second = drone(ws, log2);
    assertThat(exitOf(second)).isEqualTo(1);
    assertThat(read(log2)).contains("gadget drone: the workspace " + ws
        + " is in use by another drone, pid " + first.pid() + " on proc-box (running since ")
        .doesNotContain("[drone] connected");
    assertThat(first.isAlive()).isTrue();

    first.destroyForcibly(); // kill -9: no shutdown hook, the lock file stays behind
    exitOf(first);
    assertThat(Files.readString(ws.resolve(".gadget/" + WorkspaceLock.FILE)))
        .contains("\"pid\":" + first.pid());

    Path log3 = tmp.resolve("drone-3.log");
    Process third = drone(ws, log3);
    awaitConnected(log3);
    assertThat(read(log3)).doesNotContain("in use");
    assertThat(Files.readString(ws.resolve(".gadget/" + WorkspaceLock.FILE)))
        .contains("\"pid\":" + third.pid());
  }

  /** An OpenAI stream: {@code text}, then a run_command call of {@code command}. */
  static String toolCallReply(String text, String command) {
    String args = GadgetJson.mapper().createObjectNode().put("command", command).toString();
    String quotedArgs = GadgetJson.mapper().getNodeFactory().textNode(args).toString();
    return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text
        + "\"},\"finish_reason\":null}]}\n\n"
        + "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
        + "\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"run_command\","
        + "\"arguments\":" + quotedArgs + "}}]},\"finish_reason\":null}]}\n\n"
        + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}"
        + "\n\ndata: [DONE]\n\n";
  }

  /** An OpenAI stream that says {@code text} and stops. */
  static String textReply(String text) {
    return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text
        + "\"},\"finish_reason\":null}]}\n\n"
        + "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"
        + "\n\ndata: [DONE]\n\n";
  }

  private static boolean alive(Path pidFile) {
    try {
      long pid = Long.parseLong(Files.readString(pidFile).trim());
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    } catch (IOException | NumberFormatException e) {
      throw new AssertionError("cannot read " + pidFile, e);
    }
  }

  @Test
  void aCommandRunningWhenItsDroneIsKilledDiesWithItAndIsNeverRunAgain() throws Exception {
    // The command notes each run, then waits (with a child) for far longer than the test.
    llm.enqueue(toolCallReply("Running it.", "echo run >> runs.txt; echo $$ > shell.pid; "
        + "(sleep 120; echo late >> runs.txt) & echo $! > child.pid; wait"));
    llm.enqueue(textReply("Noted."));
    Path ws = tmp.resolve("ws");
    Path project = ws.resolve("greeter");
    Path log = tmp.resolve("drone-1.log");
    Process drone = drone(ws, log);
    awaitConnected(log);
    Page page = page();
    try {
      String turnId = submit(page, "run the long command");
      await("the command to run", () -> Files.exists(project.resolve("child.pid"))
          && Files.exists(project.resolve("shell.pid")));
      assertThat(read(ws.resolve(".gadget/work-order.json"))).as("its start is journaled")
          .contains("run_command").contains("\"pending\"");
      assertThat(alive(project.resolve("shell.pid"))).isTrue();

      drone.destroyForcibly(); // kill -9: no shutdown hook, nothing cancels the command
      exitOf(drone);
      await("the command's tree to die with its drone",
          () -> !alive(project.resolve("shell.pid")) && !alive(project.resolve("child.pid")));

      Process again = drone(ws, tmp.resolve("drone-2.log"));
      JsonNode end = page.end().get(60, TimeUnit.SECONDS);
      assertThat(end.get("status").asText()).as("%s", end).isEqualTo("finished");
      assertThat(Files.readAllLines(project.resolve("runs.txt"))).as("runs of the command")
          .containsExactly("run");
      llm.takeRequest();
      JsonNode resumed = llm.takeRequest().json().get("messages");
      assertThat(resumed.toString()).as("the model is told").contains(
          "interrupted: the drone stopped while this tool ran, so it may have partly run");
      var stored = store.store().findTurn(turnId).orElseThrow();
      assertThat(stored.status()).isEqualTo(TurnStatus.FINISHED);
      assertThat(stored.blocks()).hasSize(4);
      // what the interrupted command wrote is the turn's diff (the checkpoint survived the kill)
      assertThat(stored.blocks().get(3)).isInstanceOfSatisfying(TurnBlock.Diff.class, d ->
          assertThat(d.content().files()).extracting(f -> f.path())
              .containsExactly("child.pid", "runs.txt", "shell.pid"));
      assertThat(stored.toolCalls()).singleElement().satisfies(c ->
          assertThat(c.response()).startsWith("interrupted: the drone stopped"));
      again.destroy();
      exitOf(again);
    } finally {
      page.client().close();
    }
  }

  @Test
  void aSandboxedCommandsWholeTreeDiesWithItsKilledDroneDaemonsIncluded() throws Exception {
    String marker = "gadget-sandboxed-" + java.util.UUID.randomUUID();
    // A daemon that leaves the command's session, then the command waits for far longer.
    llm.enqueue(toolCallReply("Running it.", "setsid -f sh -c 'sleep 300; : " + marker
        + "'; echo started > started.txt; sleep 300; : " + marker));
    llm.enqueue(textReply("Noted."));
    Path ws = tmp.resolve("ws");
    Path log = tmp.resolve("drone-1.log");
    Process drone = drone(ws, log, "workspace-write");
    awaitConnected(log);
    assertThat(read(log)).contains("Commands run in a workspace-write sandbox");
    Page page = page();
    try {
      submit(page, "run the long command");
      await("the sandboxed command and its daemon", () ->
          Files.exists(ws.resolve("greeter/started.txt")) && marked(marker).size() >= 2);
      drone.destroyForcibly(); // kill -9: no shutdown hook, nothing cancels the command
      exitOf(drone);
      await("every process of the sandbox to die with its drone", () ->
          marked(marker).isEmpty());
    } finally {
      marked(marker).forEach(ProcessHandle::destroyForcibly);
      page.client().close();
    }
  }

  private static List<ProcessHandle> marked(String marker) {
    return ProcessHandle.allProcesses().filter(p -> p.isAlive() && p.info().commandLine()
        .map(c -> c.contains(marker)).orElse(false)).toList();
  }
}
