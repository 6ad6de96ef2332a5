package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmTestServer.Recorded;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link AnthropicClient} loading deferred tools by reference ({@link ToolLoading#REFERENCE}):
 * what goes on the wire to a real HTTP server, and which servers get it.
 */
class AnthropicToolReferenceTest {
  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  private static ToolDefinition tool(String name) {
    return new ToolDefinition(name, "Does " + name + ".", GadgetJson.mapper().createObjectNode()
        .put("type", "object"));
  }

  @Test
  void deferredToolsGoMarkedAndAResultThatLoadsThemRefersToThem() throws Exception {
    server.enqueue(Recordings.load("anthropic/text.sse"));
    AnthropicClient client = AnthropicClient.builder().baseUrl(server.url()).apiKey("sk-ant-t")
        .header("anthropic-beta", "interleaved-thinking-2025-05-14")
        .toolLoading(ToolLoading.REFERENCE).build();
    LlmToolCall search = new LlmToolCall("toolu_1", "search_tools",
        GadgetJson.mapper().readTree("{\"query\":\"post to slack\"}"));
    LlmToolCall read = new LlmToolCall("toolu_2", "read_file",
        GadgetJson.mapper().readTree("{\"path\":\"a\"}"));
    LlmRequest request = LlmRequest.builder("claude-sonnet-4-5", List.of(
            LlmMessage.user("post hi"),
            LlmMessage.assistant("", null, List.of(search, read)),
            LlmMessage.tool(search, "Loaded 1 tool for \"post to slack\":\n- slack__post (…)"),
            LlmMessage.tool(read, "hello"),
            LlmMessage.user("go on")))
        .tools(List.of(tool("read_file"), tool("search_tools")))
        .deferredTools(List.of(tool("slack__post"), tool("github__issue")))
        .toolReferences(Map.of("toolu_1", List.of("slack__post", "not_sent")))
        .build();
    RecordingListener l = new RecordingListener();
    client.stream(request, l);
    l.await().completed();

    Recorded r = server.takeRequest();
    // the beta goes after what the settings send
    assertThat(r.header("anthropic-beta"))
        .isEqualTo("interleaved-thinking-2025-05-14,advanced-tool-use-2025-11-20");
    JsonNode tools = r.json().get("tools");
    assertThat(tools).hasSize(4);
    assertThat(tools.get(0).has("defer_loading")).isFalse();
    // the cache breakpoint sits on the last tool of the prompt, not on a deferred one
    assertThat(tools.get(1).path("cache_control").path("type").asText()).isEqualTo("ephemeral");
    assertThat(tools.get(2).path("defer_loading").asBoolean()).isTrue();
    assertThat(tools.get(3).path("defer_loading").asBoolean()).isTrue();
    assertThat(tools.get(3).has("cache_control")).isFalse();
    JsonNode results = r.json().get("messages").get(2).get("content");
    // the results first (a reference to a tool not sent is left out), then the search's words
    assertThat(results.get(0).path("content").toString())
        .isEqualTo("[{\"type\":\"tool_reference\",\"tool_name\":\"slack__post\"}]");
    assertThat(results.get(1).path("content").asText()).isEqualTo("hello");
    assertThat(results.get(2).path("type").asText()).isEqualTo("text");
    assertThat(results.get(2).path("text").asText()).startsWith("Loaded 1 tool for");
    assertThat(results.get(3).path("text").asText()).isEqualTo("go on");
    assertThat(results).hasSize(4);
  }

  @Test
  void aRequestWithoutDeferredToolsSendsNoBeta() {
    server.enqueue(Recordings.load("anthropic/text.sse"));
    AnthropicClient client = AnthropicClient.builder().baseUrl(server.url()).apiKey("sk-ant-t")
        .toolLoading(ToolLoading.REFERENCE).build();
    RecordingListener l = new RecordingListener();
    client.stream(LlmRequest.builder("claude-sonnet-4-5", List.of(LlmMessage.user("hi")))
        .tools(List.of(tool("read_file"))).build(), l);
    l.await().completed();
    Recorded r = server.takeRequest();
    assertThat(r.header("anthropic-beta")).isNull();
    assertThat(r.json().get("tools").get(0).has("defer_loading")).isFalse();
  }

  @Test
  void referencesOnlyOnAnthropicsOwnApiUnlessTold() {
    assertThat(AnthropicClient.builder().build().toolLoading()).isEqualTo(ToolLoading.REFERENCE);
    assertThat(AnthropicClient.builder().baseUrl(URI.create("https://proxy.example/anthropic"))
        .build().toolLoading()).isEqualTo(ToolLoading.APPEND);
    assertThat(AnthropicClient.builder().baseUrl(server.url()).toolLoading(ToolLoading.REFERENCE)
        .build().toolLoading()).isEqualTo(ToolLoading.REFERENCE);
    assertThat(OpenAiClient.builder().build().toolLoading()).isEqualTo(ToolLoading.IN_RESULT);
    assertThat(OllamaClient.builder().build().toolLoading()).isEqualTo(ToolLoading.IN_RESULT);
    assertThat(OpenAiResponsesClient.builder().build().toolLoading())
        .isEqualTo(ToolLoading.IN_RESULT);
  }
}
