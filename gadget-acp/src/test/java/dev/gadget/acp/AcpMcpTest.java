package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An MCP server the editor passes in session/new is started and its tools offered: the real
 * server-everything from npm, as gadget-mcp's build installs it from its lock file.
 */
class AcpMcpTest {
  private static final Path EVERYTHING = Path.of("../gadget-mcp/src/test/node/node_modules/"
      + "@modelcontextprotocol/server-everything/dist/index.js").toAbsolutePath().normalize();

  @TempDir Path project;

  @Test
  void anEditorSuppliedMcpServersToolIsCalled() throws Exception {
    assertThat(EVERYTHING).as("installed by gadget-mcp's build (npm ci in its src/test/node); "
        + "run with -am").satisfies(p -> assertThat(Files.isRegularFile(p)).isTrue());
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      AcpSchema.McpServer server = new AcpSchema.McpServerStdio("everything", "node",
          List.of(EVERYTHING.toString(), "stdio"), List.of());
      String session = acp.client.newSession(new AcpSchema.NewSessionRequest(project.toString(),
          List.of(server))).sessionId();
      assertThat(acp.prompt(session, "mcp hello from the editor"))
          .isEqualTo(AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().contains("editor"));
      assertThat(Updates.lines(acp.wireUpdates())).containsExactly(
          "tool_call other in_progress everything: echo", "update completed", "message");
      assertThat(Updates.message(acp.wireUpdates())).startsWith("The MCP server said:")
          .contains("hello from the editor");
    }
  }

  @Test
  void anMcpServerThatCannotStartIsAnErrorInPeoplesWords() {
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      AcpSchema.McpServer server = new AcpSchema.McpServerStdio("broken",
          project.resolve("no-such-program").toString(), List.of(), List.of());
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> acp.client.newSession(
          new AcpSchema.NewSessionRequest(project.toString(), List.of(server))))
          .hasMessageContaining("The MCP server \"broken\" cannot start: its program");
      // the process goes on
      assertThat(acp.newSession(project)).startsWith("gadget-");
    }
  }
}
