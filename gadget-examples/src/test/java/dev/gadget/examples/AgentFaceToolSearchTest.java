package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.catalog.McpCatalogFixture;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.ScriptedLlmClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 004's tool-search events on {@code /agent}: a real server and drone whose agent has the
 * coding tools and 304 real MCP tool definitions (deferred), a scripted model that searches, and
 * seed004-client.js reading what comes.
 */
class AgentFaceToolSearchTest {
  @TempDir Path tmp;
  PageFixture fx;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  @Test
  void aSearchIsToldAsSearchingThenFoundMismatchedOrNotFound() throws Exception {
    Queue<String> calls = McpCatalogFixture.calls();
    List<Tool> tools = new ArrayList<>(CodingTools.all());
    tools.addAll(McpCatalogFixture.tools(calls));
    fx = new PageFixture(tmp, ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("search_tools",
            "{\"query\":\"open an issue on GitHub\"}").build(),
        ScriptedLlmClient.reply().toolCall("github__create_issue",
            "{\"owner\":\"acme\",\"repo\":\"web\",\"title\":\"Broken\"}").build(),
        ScriptedLlmClient.reply().text("Filed.").build(),
        ScriptedLlmClient.reply().toolCall("slack__slack_post_message", // not loaded: not run
            "{\"channel_id\":\"C1\",\"text\":\"zebra\"}").build(),
        ScriptedLlmClient.reply().toolCall("search_tools",
            "{\"query\":\"zebra quokka\"}").build(),
        ScriptedLlmClient.reply().text("No such tool.").build(),
        ScriptedLlmClient.reply().toolCall("search_tools",
            "{\"query\":\"create a teleporter for the quantum flux capacitor\"}").build(),
        ScriptedLlmClient.reply().text("Nothing fits.").build()), false, true,
        b -> b.tools(tools).toolDeferral(ToolDeferral.DEFAULT));
    JsonNode log = Seed004Client.run(fx, fx.user.pageToken(), List.of(
        query("File a bug: the page is broken"), query("Feed the zebra"),
        query("Build a teleporter")), 30000, 0);

    assertThat(log.get(2).get("event").asText()).isEqualTo("tool_count");
    assertThat(log.get(2).get("payload").get("count").asInt())
        .isEqualTo(CodingTools.all().size() + 304); // the whole catalog, deferred tools too

    List<JsonNode> events = Seed004Client.agentEvents(log);
    List<String> types = events.stream().map(e -> e.get("event_type").asText()).toList();
    assertThat(types).containsExactly(
        "searching", "tool_found", "tool_found", "tool_found", "tool_found", "tool_found",
        "executing", "execution_complete", "synthesizing_response", "complete",
        "executing", "execution_skipped",
        "searching", "no_tool_found", "synthesizing_response", "complete",
        "searching", "tool_mismatch", "synthesizing_response", "complete");
    List<JsonNode> data = events.stream().map(e -> e.get("data")).toList();
    assertThat(data.get(0).get("query").asText()).isEqualTo("open an issue on GitHub");
    assertThat(data.get(1).get("tool_name").asText()).isEqualTo("github__create_issue");
    assertThat(data.get(1).get("similarity").asDouble()).isBetween(0.3, 1.0);
    assertThat(data.get(2).get("similarity").asDouble())
        .isLessThanOrEqualTo(data.get(1).get("similarity").asDouble() + 1e-9);
    assertThat(data.get(6).get("tool_name").asText()).isEqualTo("github__create_issue");
    assertThat(data.get(7).get("result").asText()).isEqualTo("ran github__create_issue");
    assertThat(data.get(10).get("tool_name").asText()).isEqualTo("slack__slack_post_message");
    assertThat(data.get(11).get("reason").asText())
        .startsWith("Error: slack__slack_post_message did not run: it was not loaded yet");
    assertThat(data.get(12).get("query").asText()).isEqualTo("zebra quokka");
    JsonNode mismatch = data.get(17);
    assertThat(mismatch.get("similarity").asDouble()).isLessThan(0.3);
    assertThat(mismatch.get("reason").asText()).startsWith("the best covers ")
        .endsWith("of its words, under 30%");
    assertThat(calls).containsExactly(
        "github__create_issue {\"owner\":\"acme\",\"repo\":\"web\",\"title\":\"Broken\"}");
  }

  private static Map<String, Object> query(String prompt) {
    return Seed004Client.query(prompt, "search-session");
  }
}
