package dev.gadget.mcp;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.catalog.ToolMatch;
import dev.gadget.core.agent.catalog.ToolSearch;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.llm.ToolLoading;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tool search over four real MCP servers from npm (filesystem, everything, memory and
 * chrome-devtools-mcp's 32 tools) with a scripted model, in each way of loading found tools: the
 * first request carries only the coding tools and search_tools (and call_tool, through which the
 * model calls what a search's result defines); a search finds the memory server's tool, which
 * then runs for real; and each request re-sends the one before it byte for byte, tools and
 * messages, with (when appending) the loaded definitions at the end of the tools.
 */
class McpToolSearchTest {
  @TempDir Path project;
  @TempDir Path data;

  @ParameterizedTest
  @EnumSource(ToolLoading.class)
  void aTurnSearchesLoadsAndRunsARealServersTool(ToolLoading loading) throws Exception {
    Path memoryFile = data.resolve("memory.jsonl");
    try (McpToolset mcp = McpToolset.builder()
        .server(NodeServers.filesystem("fs", project.toRealPath()))
        .server(NodeServers.everythingStdio("everything"))
        .server(NodeServers.memory("memory", memoryFile))
        .server(NodeServers.chromeDevtools("chrome_devtools"))
        .start()) {
      assertThat(mcp.tools().stream().filter(t -> t.name().startsWith("chrome_devtools__")))
          .hasSizeGreaterThanOrEqualTo(30);
      List<Tool> tools = new ArrayList<>(CodingTools.all());
      tools.addAll(mcp.tools());
      String create = "{\"entities\":[{\"name\":\"Gadget\",\"entityType\":\"project\","
          + "\"observations\":[\"an SDK for agents\"]}]}";
      ScriptedLlmClient llm = ScriptedLlmClient.builder().toolLoading(loading)
          .reply(reply().toolCall("search_tools",
              "{\"query\":\"remember a new entity in the knowledge graph\"}").build())
          .reply(loading == ToolLoading.IN_RESULT ? reply().toolCall("call_tool",
              "{\"name\":\"memory__create_entities\",\"arguments\":" + create + "}").build()
              : reply().toolCall("memory__create_entities", create).build())
          .reply(reply().toolCall("search_tools", "{\"query\":\"take a screenshot of the "
              + "page\"}").build())
          .reply(reply().text("Remembered.").build()).build();

      AgentOutcome outcome = AgentLoop.builder().llmClient(llm).tools(tools).build()
          .start(AgentRequest.builder(project, "m", "Remember this project").build(),
              new AgentListener() {}).outcome().get(60, TimeUnit.SECONDS);

      assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
      List<LlmRequest> requests = llm.requests();
      List<String> first = new ArrayList<>(CodingTools.all().stream().map(Tool::name).toList());
      first.add(ToolSearch.NAME);
      if (loading == ToolLoading.IN_RESULT) {
        first.add("call_tool");
      }
      assertThat(names(requests.get(0))).containsExactlyElementsOf(first);
      assertThat(requests.get(0).tools().get(CodingTools.all().size()).description()).startsWith(
          mcp.tools().size() + " more tools (from the MCP servers chrome_devtools, everything, "
              + "fs, memory)");

      ToolSearch.Result found = ToolSearch.read(outcome.toolCalls().get(0).response());
      assertThat(found.outcome()).isEqualTo(ToolSearch.Outcome.FOUND);
      assertThat(found.matches()).extracting(ToolMatch::name).contains("memory__create_entities");
      assertThat(outcome.toolCalls().get(1).name()).isEqualTo("memory__create_entities");
      assertThat(outcome.toolCalls().get(1).failed()).isFalse();
      assertThat(outcome.toolCalls().get(1).response()).contains("Gadget");
      assertThat(Files.readString(memoryFile)).contains("\"name\":\"Gadget\"");
      ToolSearch.Result screenshot = ToolSearch.read(outcome.toolCalls().get(2).response());
      assertThat(screenshot.matches()).extracting(ToolMatch::name)
          .contains("chrome_devtools__take_screenshot");

      for (int i = 1; i < requests.size(); i++) {
        String toolsBefore = json(requests.get(i - 1).tools());
        String toolsNow = json(requests.get(i).tools());
        if (loading == ToolLoading.APPEND) {
          assertThat(toolsNow).startsWith(toolsBefore.substring(0, toolsBefore.length() - 1));
        } else {
          assertThat(toolsNow).isEqualTo(toolsBefore);
        }
        assertThat(json(requests.get(i).messages())).startsWith(
            json(requests.get(i - 1).messages()).replaceFirst("]$", ""));
      }
      List<String> loaded = found.matches().stream().map(ToolMatch::name).toList();
      if (loading == ToolLoading.APPEND) { // what each search loaded, and nothing else
        assertThat(names(requests.get(1)).subList(first.size(), requests.get(1).tools().size()))
            .containsExactlyElementsOf(loaded);
      } else if (loading == ToolLoading.REFERENCE) { // every server tool, to load by reference
        assertThat(requests.get(1).deferredTools()).hasSize(mcp.tools().size());
        assertThat(requests.get(1).toolReferences())
            .containsEntry(outcome.toolCalls().get(0).callId(), loaded);
      } else {
        assertThat(outcome.toolCalls().get(0).response())
            .contains("{\"name\":\"memory__create_entities\",\"description\":");
      }
    }
  }

  private static List<String> names(LlmRequest r) {
    return r.tools().stream().map(ToolDefinition::name).toList();
  }

  private static String json(Object value) throws Exception {
    JsonNode tree = GadgetJson.mapper().valueToTree(value);
    return GadgetJson.mapper().writeValueAsString(tree);
  }
}
