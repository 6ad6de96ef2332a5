package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.drone.TurnTools;
import dev.gadget.core.llm.ScriptedLlmClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gadget drone --mcp FILE}: the servers start with the drone and stop with it. */
class DroneMcpTest {
  /** A small real MCP server over stdio, in Node without packages: one tool, "say". */
  private static final String SERVER = """
      const rl = require('readline').createInterface({ input: process.stdin });
      const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
      rl.on('line', (line) => {
        const m = JSON.parse(line);
        if (m.id === undefined) return;
        if (m.method === 'initialize') {
          send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion,
            capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1' } } });
        } else if (m.method === 'tools/list') {
          send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'say',
            description: 'Says it back', inputSchema: { type: 'object' } }] } });
        } else if (m.method === 'tools/call') {
          send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text',
            text: 'you said ' + m.params.arguments.text }] } });
        } else {
          send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no ' + m.method } });
        }
      });
      rl.on('close', () => process.exit(0));
      """;

  @TempDir Path tmp;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int drone(Path mcp) throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();   // nothing listens there: the drone keeps asking
    }
    Console console = new Console(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8),
        Map.of("GADGET_DRONE_TOKEN", "gdt_test"));
    return Main.run(List.of("drone", "--server", "127.0.0.1:" + port, "--workspace",
        tmp.resolve("ws").toString(), "--mcp", mcp.toString()), console, false);
  }

  private List<ProcessHandle> servers(Path script) {
    return servers(script.toString());
  }

  private static List<ProcessHandle> servers(String commandLinePart) {
    return ProcessHandle.current().descendants()
        .filter(p -> p.info().commandLine().orElse("").contains(commandLinePart))
        .toList();
  }

  @Test
  void theServersStartBeforeTheDroneAndStopWithIt() throws Exception {
    Path script = tmp.resolve("echo-server.js");
    Files.writeString(script, SERVER);
    Path file = tmp.resolve(".mcp.json");
    Files.writeString(file, "{\"mcpServers\": {\"echo\": {\"command\": \"node\", \"args\": [\""
        + script + "\"]}}}");

    assertThat(drone(file)).isZero();   // started, then closed at once (not blocking)

    assertThat(out.toString(StandardCharsets.UTF_8)).contains("MCP: 1 tools from [echo]");
    assertThat(servers(script)).isEmpty();
  }

  @Test
  void aServerThatDoesNotStartStopsTheDroneWithItsName() throws Exception {
    Path file = tmp.resolve(".mcp.json");
    Files.writeString(file, "{\"mcpServers\": {\"bad\": {\"command\": \"node\", \"args\": "
        + "[\"-e\", \"console.error('no API key'); process.exit(2)\"]}}}");

    assertThat(drone(file)).isEqualTo(1);

    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("gadget drone: could not start the MCP server \"bad\"", "no API key");
  }

  @Test
  void aMissingFileIsNamed() throws Exception {
    assertThat(drone(tmp.resolve("nope.json"))).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("gadget drone: --mcp " + tmp.resolve("nope.json") + ": there is no such file");
  }

  @Test
  void aProjectsOwnServersAreItsTurnsAndEndWithThem() throws Exception {
    Path project = Files.createDirectories(tmp.resolve("project"));
    Files.writeString(project.resolve("echo-server.js"), SERVER);
    Files.writeString(project.resolve(".mcp.json"),
        "{\"mcpServers\": {\"echo\": {\"command\": \"node\", \"args\": [\"echo-server.js\"]}}}");

    List<ProcessHandle> running;
    try (TurnTools tools = DroneMcp.forProject(project)) {
      assertThat(tools.tools()).extracting(Tool::name).containsExactly("echo__say");
      // "echo-server.js" is found because the server runs in the project
      running = servers("node echo-server.js");
      assertThat(running).hasSize(1);
      ScriptedLlmClient llm = ScriptedLlmClient.of(
          ScriptedLlmClient.reply().toolCall("echo__say", "{\"text\":\"hi\"}").build(),
          ScriptedLlmClient.reply().text("done").build());
      AgentOutcome outcome = AgentLoop.builder().llmClient(llm).tools(tools.tools()).build()
          .start(AgentRequest.builder(project, "m", "go").build(), new AgentListener() {})
          .outcome().get(60, TimeUnit.SECONDS);
      assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
      assertThat(llm.requests().get(1).messages().get(llm.requests().get(1).messages().size() - 1)
          .content()).contains("you said hi");
    }
    assertThat(running.get(0).isAlive()).isFalse();
  }

  @Test
  void aProjectWithoutAFileHasNoServers() {
    try (TurnTools tools = DroneMcp.forProject(tmp)) {
      assertThat(tools.tools()).isEmpty();
    }
  }
}
