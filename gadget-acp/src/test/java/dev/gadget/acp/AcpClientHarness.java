package dev.gadget.acp;

import com.agentclientprotocol.sdk.client.AcpClient;
import com.agentclientprotocol.sdk.client.AcpSyncClient;
import com.agentclientprotocol.sdk.client.transport.AgentParameters;
import com.agentclientprotocol.sdk.client.transport.StdioAcpClientTransport;
import com.agentclientprotocol.sdk.spec.AcpSchema;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The official ACP Java SDK's client, driving {@link ScriptedAgentMain} as a subprocess: it
 * records every {@code session/update} and answers the agent's requests as the test says.
 */
final class AcpClientHarness implements AutoCloseable {
  static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  final List<AcpSchema.SessionUpdate> updates = new CopyOnWriteArrayList<>();
  final List<AcpSchema.RequestPermissionRequest> permissionRequests = new CopyOnWriteArrayList<>();
  final List<AcpSchema.WriteTextFileRequest> writes = new CopyOnWriteArrayList<>();
  final AcpSyncClient client;

  /** What the fake editor does. */
  static final class Editor {
    boolean fs;
    String buffer;
    Function<AcpSchema.RequestPermissionRequest, AcpSchema.RequestPermissionOutcome> permission =
        r -> new AcpSchema.PermissionSelected("allow_once");
    /** Where the agent stores sessions; {@code null}: in memory. */
    Path sessions;
    /** The turn's context budget in tokens; {@code null}: the default. */
    Integer contextBudget;
    /** The turn's most model round trips; {@code null}: the default. */
    Integer maxRoundTrips;
    /** The editor's terminal, when it offers one. */
    RealTerminals terminal;
    /** Whether the agent is told not to use the editor's terminal. */
    boolean noEditorTerminal;
  }

  AcpClientHarness(Editor editor, String... agentArgs) {
    List<String> args = new ArrayList<>(List.of("-cp", System.getProperty("java.class.path"),
        ScriptedAgentMain.class.getName()));
    args.addAll(List.of(agentArgs));
    try {
      wireLog = Files.createTempFile("acp-wire-", ".ndjson");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    AgentParameters.Builder agent = AgentParameters.builder(javaBin()).args(args)
        .addEnvVar("ACP_WIRE_LOG", wireLog.toString());
    if (editor.sessions != null) {
      agent.addEnvVar("ACP_SESSIONS", editor.sessions.toString());
    }
    if (editor.noEditorTerminal) {
      agent.addEnvVar("ACP_NO_EDITOR_TERMINAL", "1");
    }
    if (editor.contextBudget != null) {
      agent.addEnvVar("ACP_CONTEXT_BUDGET", editor.contextBudget.toString());
    }
    if (editor.maxRoundTrips != null) {
      agent.addEnvVar("ACP_MAX_ROUND_TRIPS", editor.maxRoundTrips.toString());
    }
    AgentParameters params = agent.build();
    AcpClient.SyncSpec spec = AcpClient.sync(new StdioAcpClientTransport(params))
        .requestTimeout(DEADLINE)
        .sessionUpdateConsumer(n -> updates.add(n.update()))
        .requestPermissionHandler(r -> {
          permissionRequests.add(r);
          return new AcpSchema.RequestPermissionResponse(editor.permission.apply(r));
        });
    if (editor.fs) {
      spec.readTextFileHandler(r -> new AcpSchema.ReadTextFileResponse(editor.buffer))
          .writeTextFileHandler(r -> {
            writes.add(r);
            editor.buffer = r.content();
            return new AcpSchema.WriteTextFileResponse();
          });
    }
    if (editor.terminal != null) {
      editor.terminal.register(spec);
    }
    client = spec.build();
    AcpSchema.ClientCapabilities caps = new AcpSchema.ClientCapabilities(
        new AcpSchema.FileSystemCapability(editor.fs, editor.fs), editor.terminal != null);
    initializeResponse = client.initialize(new AcpSchema.InitializeRequest(1, caps));
  }

  final AcpSchema.InitializeResponse initializeResponse;
  private final Path wireLog;

  /** The {@code update}s of the session/update notifications the agent sent, in its order. */
  List<JsonNode> wireUpdates() throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(wireLog)) {
      JsonNode msg = JSON.readTree(line);
      if ("session/update".equals(msg.path("method").asText())) {
        out.add(msg.path("params").path("update"));
      }
    }
    return out;
  }

  /** Every message the agent sent, in its order. */
  List<JsonNode> wireMessages() throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (String line : Files.readAllLines(wireLog)) {
      out.add(JSON.readTree(line));
    }
    return out;
  }

  /**
   * Kills the agent's process at once (no chance to store anything more), and waits until it is
   * gone.
   */
  void killAgent() throws Exception {
    List<ProcessHandle> agents = ProcessHandle.current().children()
        .filter(p -> p.info().commandLine().orElse("").contains(ScriptedAgentMain.class.getName()))
        .toList();
    if (agents.size() != 1) {
      throw new AssertionError("expected one agent process, found " + agents.size());
    }
    agents.get(0).destroyForcibly();
    agents.get(0).onExit().get(DEADLINE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Waits until the agent has sent an update that matches, or fails after the deadline. */
  void awaitWire(Predicate<JsonNode> which) throws Exception {
    Instant end = Instant.now().plus(DEADLINE);
    while (wireUpdates().stream().noneMatch(which)) {
      if (Instant.now().isAfter(end)) {
        throw new AssertionError("the agent sent no such update within " + DEADLINE);
      }
      synchronized (this) {
        wait(10);
      }
    }
  }

  String newSession(Path cwd) {
    return client.newSession(new AcpSchema.NewSessionRequest(cwd.toString(), List.of()))
        .sessionId();
  }

  /** Loads a stored session; its history arrives as updates before this returns. */
  AcpSchema.LoadSessionResponse loadSession(String sessionId, Path cwd) {
    return client.loadSession(new AcpSchema.LoadSessionRequest(sessionId, cwd.toString(),
        List.of()));
  }

  AcpSchema.StopReason prompt(String sessionId, String text) {
    return client.prompt(new AcpSchema.PromptRequest(sessionId,
        List.of(new AcpSchema.TextContent(text)))).stopReason();
  }

  /** Waits until an update matches, or fails after the deadline. */
  void awaitUpdate(Predicate<AcpSchema.SessionUpdate> which) throws InterruptedException {
    Instant end = Instant.now().plus(DEADLINE);
    while (updates.stream().noneMatch(which)) {
      if (Instant.now().isAfter(end)) {
        throw new AssertionError("no such update within " + DEADLINE + "; got " + updates);
      }
      synchronized (this) {
        wait(10);
      }
    }
  }

  @Override
  public void close() {
    client.closeGracefully();
    try {
      Files.deleteIfExists(wireLog);
    } catch (IOException e) {
      // a temporary file
    }
  }

  static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
