package dev.gadget.mcp;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agent-loop turns in which the model calls a tool of a real MCP server from npm. */
class McpAgentLoopTest {
  @TempDir Path project;

  @Test
  void aTurnCallsTheFilesystemServersToolOverStdio() throws Exception {
    Files.writeString(project.resolve("notes.txt"), "the launch code is 0000\n");
    try (McpToolset mcp = McpToolset.builder()
        .server(NodeServers.filesystem("fs", project.toRealPath())).start()) {
      ScriptedLlmClient llm = ScriptedLlmClient.of(
          reply().toolCall("fs__read_text_file",
              "{\"path\":\"" + project.toRealPath().resolve("notes.txt") + "\"}").build(),
          reply().text("It says the launch code is 0000.").build());

      OneTurn turn = OneTurn.run(mcp, project, llm);

      assertThat(turn.outcome().status()).isEqualTo(AgentOutcome.Status.FINISHED);
      assertThat(turn.outcome().text()).isEqualTo("It says the launch code is 0000.");
      ToolDefinition offered = turn.requests().get(0).tools().stream()
          .filter(t -> t.name().equals("fs__read_text_file")).findFirst().orElseThrow();
      assertThat(offered.parameters().path("properties").has("path")).isTrue();
      assertThat(turn.toolResult().toolName()).isEqualTo("fs__read_text_file");
      assertThat(turn.toolResult().content()).contains("the launch code is 0000");
      assertThat(turn.successes()).containsExactly(true);
    }
  }

  @Test
  void aTurnCallsTheEverythingServersToolOverStreamableHttp() throws Exception {
    try (NodeServers.EverythingHttp server = new NodeServers.EverythingHttp();
        McpToolset mcp = McpToolset.builder()
            .server(McpServerConfig.http("everything", server.url)).start()) {
      assertThat(mcp.tools()).extracting(Tool::name).contains("everything__echo",
          "everything__get_sum");
      ScriptedLlmClient llm = ScriptedLlmClient.of(
          reply().toolCall("everything__get_sum", "{\"a\":19,\"b\":23}").build(),
          reply().text("42").build());

      OneTurn turn = OneTurn.run(mcp, project, llm);

      assertThat(turn.outcome().status()).isEqualTo(AgentOutcome.Status.FINISHED);
      assertThat(turn.toolResult().toolName()).isEqualTo("everything__get_sum");
      assertThat(turn.toolResult().content()).contains("42");
      assertThat(turn.successes()).containsExactly(true);
      assertThat(mcp.processes("everything")).isEmpty();
    }
  }

  @Test
  void aTurnCallsTheEverythingServersToolOverStdio() throws Exception {
    try (McpToolset mcp = McpToolset.builder()
        .server(NodeServers.everythingStdio("every-thing")).start()) {
      ScriptedLlmClient llm = ScriptedLlmClient.of(
          reply().toolCall("every_thing__echo", "{\"message\":\"hello from the model\"}").build(),
          reply().text("done").build());

      OneTurn turn = OneTurn.run(mcp, project, llm);

      assertThat(turn.outcome().status()).isEqualTo(AgentOutcome.Status.FINISHED);
      assertThat(turn.toolResult().content()).contains("hello from the model");
    }
  }

  @Test
  void contentOtherThanTextIsDescribedToTheModel() throws Exception {
    try (McpToolset mcp = McpToolset.builder()
        .server(NodeServers.everythingStdio("everything")).start()) {
      ScriptedLlmClient llm = ScriptedLlmClient.of(
          reply().toolCall("everything__get_tiny_image", "{}").build(),
          reply().text("a tiny image").build());

      OneTurn turn = OneTurn.run(mcp, project, llm);

      assertThat(turn.successes()).containsExactly(true);
      assertThat(turn.toolResult().content()).containsPattern("\\[image, image/png, \\d+ bytes\\]");
    }
  }
}
