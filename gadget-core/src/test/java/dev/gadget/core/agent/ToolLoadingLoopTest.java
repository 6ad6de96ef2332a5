package dev.gadget.core.agent;

import static dev.gadget.core.agent.ProviderBodies.json;
import static dev.gadget.core.agent.ProviderBodies.open;
import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.catalog.McpCatalogFixture;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.catalog.ToolSearch;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.llm.ToolLoading;
import dev.gadget.core.model.ToolCall;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A turn over the coding tools and 304 real MCP tool definitions that loads found tools without
 * changing the request's tools: by reference (Anthropic's way) and in the search's result
 * through {@code call_tool} (OpenAI-compatible servers' and Ollama's). Consecutive requests are
 * compared byte for byte in the bodies the clients send.
 */
class ToolLoadingLoopTest extends McpCatalogTurns {
  private static final String POST = "{\"channel_id\":\"C1\",\"text\":\"hi\"}";

  private AgentOutcome run(ScriptedLlmClient llm, List<LlmMessage> resume) throws Exception {
    AgentLoop loop = AgentLoop.builder().llmClient(llm).tools(tools)
        .toolDeferral(ToolDeferral.DEFAULT).build();
    return loop.start(AgentRequest.builder(repo.dir(), "m", "Say hi on Slack").resume(resume)
        .build(), new AgentListener() {}).outcome().get(20, TimeUnit.SECONDS);
  }

  /** A model that reads a file, then searches for Slack's tool to post a message. */
  private static ScriptedLlmClient.Builder readThenSearch(ToolLoading loading) {
    return ScriptedLlmClient.builder().toolLoading(loading)
        .reply(reply().toolCall("read_file", "{\"path\":\"README.md\"}").build())
        .reply(reply().toolCall("search_tools", "{\"query\":\"post a message in a slack "
            + "channel\"}").build());
  }

  /** Runs a turn and checks that it finished having posted once on Slack. */
  private AgentOutcome postOnce(ScriptedLlmClient llm) throws Exception {
    AgentOutcome outcome = run(llm, List.of());
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(calls).containsExactly("slack__slack_post_message " + POST);
    return outcome;
  }

  private static List<String> names(List<ToolDefinition> defs) {
    return defs.stream().map(ToolDefinition::name).toList();
  }

  /** Each request's tools are the first's, and its messages the last's and more, byte for byte. */
  private static void assertOnlyMessagesAppended(String provider, List<LlmRequest> requests)
      throws Exception {
    for (int i = 1; i < requests.size(); i++) {
      assertThat(json(provider, requests.get(i), "tools")).as(provider + " " + i)
          .isEqualTo(json(provider, requests.get(0), "tools"));
      assertThat(json(provider, requests.get(i), "system")).as(provider + " " + i)
          .isEqualTo(json(provider, requests.get(0), "system"));
      assertThat(json(provider, requests.get(i), "messages")).as(provider + " " + i)
          .startsWith(open(json(provider, requests.get(i - 1), "messages")));
    }
  }

  @Test
  void byReferenceTheToolsNeverChangeAndTheSearchsResultLoadsWhatItFound() throws Exception {
    ScriptedLlmClient llm = readThenSearch(ToolLoading.REFERENCE)
        .reply(reply().toolCall("slack__slack_post_message", POST).build())
        .reply(reply().text("Posted.").build()).build();

    AgentOutcome outcome = postOnce(llm);
    List<LlmRequest> requests = llm.requests();
    for (LlmRequest r : requests) {
      assertThat(names(r.tools())).containsExactlyElementsOf(codingAnd(ToolSearch.NAME));
      assertThat(r.deferredTools()).hasSize(304);
    }
    String searchId = outcome.toolCalls().get(1).callId();
    ToolSearch.Result found = ToolSearch.read(outcome.toolCalls().get(1).response());
    List<String> loaded = found.matches().stream().map(m -> m.name()).toList();
    assertThat(loaded).hasSize(5).contains("slack__slack_post_message");
    assertThat(requests.get(0).toolReferences()).isEmpty();
    assertThat(requests.get(2).toolReferences()).containsOnlyKeys(searchId)
        .containsEntry(searchId, loaded);
    assertOnlyMessagesAppended("anthropic", requests);
    String results = json("anthropic", requests.get(3), "messages");
    assertThat(results).contains("{\"type\":\"tool_reference\",\"tool_name\":"
        + "\"slack__slack_post_message\"}");
    assertThat(outcome.stats().toolsLoaded()).isEqualTo(CODING.size() + 5);
    assertThat(outcome.stats().toolsDeferred()).isEqualTo(299);
  }

  @ParameterizedTest
  @EnumSource(value = ToolLoading.class, names = {"REFERENCE", "IN_RESULT"})
  void aResumedTurnHasWhatItsEarlierSearchLoaded(ToolLoading loading) throws Exception {
    ScriptedLlmClient first = ScriptedLlmClient.builder().toolLoading(loading)
        .reply(reply().toolCall("search_tools", "{\"query\":\"slack post message\"}").build())
        .reply(reply().text("Found it.").build()).build();
    AgentOutcome before = run(first, List.of());
    ToolCall search = before.toolCalls().get(0);
    LlmToolCall asked = new LlmToolCall(search.callId(), search.name(),
        GadgetJson.mapper().readTree(search.parameters()));

    ScriptedLlmClient llm = ScriptedLlmClient.builder().toolLoading(loading)
        .reply(loading == ToolLoading.IN_RESULT ? reply().toolCall("call_tool",
            "{\"name\":\"slack__slack_post_message\",\"arguments\":" + POST + "}").build()
            : reply().toolCall("slack__slack_post_message", POST).build())
        .reply(reply().text("Posted.").build()).build();
    AgentOutcome after = run(llm, List.of(LlmMessage.assistant("", null, List.of(asked)),
        LlmMessage.tool(asked, search.response())));

    if (loading == ToolLoading.REFERENCE) { // referenced again: the definitions come back
      assertThat(llm.requests().get(0).toolReferences().get(search.callId()))
          .contains("slack__slack_post_message").hasSize(5);
    }
    // it ran at once: it was loaded, not answered with its definition
    assertThat(calls).containsExactly("slack__slack_post_message " + POST);
    assertThat(after.stats().toolsLoaded()).isEqualTo(CODING.size() + 5);
  }

  @Test
  void aSecondSearchReferencesAgainWhatTheFirstLoaded() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.builder().toolLoading(ToolLoading.REFERENCE)
        .reply(reply().toolCall("search_tools", "{\"query\":\"slack post message\"}").build())
        .reply(reply().toolCall("search_tools", "{\"query\":\"post to slack\"}").build())
        .reply(reply().text("Found it twice.").build()).build();

    AgentOutcome outcome = run(llm, List.of());

    // compaction may have taken the first reference out: the second brings the definition back
    String second = outcome.toolCalls().get(1).callId();
    assertThat(llm.requests().get(2).toolReferences().get(second))
        .contains("slack__slack_post_message");
    assertThat(outcome.toolCalls().get(1).response()).contains("[already loaded]");
  }

  @Test
  void theProvidersCapNeverCutsSearchOrCallTool() throws Exception {
    ScriptedLlmClient script = ScriptedLlmClient.builder().toolLoading(ToolLoading.IN_RESULT)
        .reply(reply().text("Hi.").build()).build();
    dev.gadget.core.llm.LlmClient capped = new dev.gadget.core.llm.LlmClient() {
      @Override
      public dev.gadget.core.llm.LlmCall stream(LlmRequest request,
          dev.gadget.core.llm.LlmListener listener) {
        return script.stream(request, listener);
      }

      @Override
      public int maxTools() {
        return 5;
      }

      @Override
      public ToolLoading toolLoading() {
        return ToolLoading.IN_RESULT;
      }
    };
    AgentLoop.builder().llmClient(capped).tools(tools).toolDeferral(ToolDeferral.DEFAULT).build()
        .start(AgentRequest.builder(repo.dir(), "m", "hi").build(), new AgentListener() {})
        .outcome().get(20, TimeUnit.SECONDS);
    assertThat(names(script.requests().get(0).tools())).hasSize(5)
        .endsWith(ToolSearch.NAME, "call_tool");
  }

  @Test
  void inTheResultTheModelCallsWhatItFoundThroughCallTool() throws Exception {
    ScriptedLlmClient llm = readThenSearch(ToolLoading.IN_RESULT)
        .reply(reply().toolCall("call_tool", "{\"name\":\"slack__slack_post_message\","
            + "\"arguments\":" + POST + "}").build())
        .reply(reply().toolCall("call_tool", "{\"arguments\":{}}").build())
        .reply(reply().toolCall("call_tool", "{\"name\":\"slack__slack_post_message\","
            + "\"arguments\":\"{\\\"channel_id\\\":\\\"C2\\\",\\\"text\\\":\\\"yo\\\"}\"}").build())
        .reply(reply().text("Posted.").build()).build();

    AgentOutcome outcome = run(llm, List.of());
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    // arguments sent as a JSON text are read as the object they stand for
    assertThat(calls).containsExactly("slack__slack_post_message " + POST,
        "slack__slack_post_message {\"channel_id\":\"C2\",\"text\":\"yo\"}");
    List<LlmRequest> requests = llm.requests();
    for (LlmRequest r : requests) {
      assertThat(names(r.tools())).containsExactlyElementsOf(codingAnd(ToolSearch.NAME,
          "call_tool"));
      assertThat(r.deferredTools()).isEmpty();
    }
    // the system prompt says how to call what a search loads
    assertThat(requests.get(0).messages().get(0).content()).contains("- call_tool: ")
        .contains("Call a tool that search_tools loaded through call_tool");
    String answer = outcome.toolCalls().get(1).response();
    assertThat(ToolSearch.read(answer).matches()).hasSize(5);
    assertThat(answer).contains("call one through call_tool")
        .contains("{\"name\":\"slack__slack_post_message\",\"description\":");
    // the listener and the page see the tool that ran, not call_tool
    ToolCall ran = outcome.toolCalls().get(2);
    assertThat(ran.name()).isEqualTo("slack__slack_post_message");
    assertThat(ran.parameters()).isEqualTo(POST);
    assertThat(outcome.toolCalls().get(3).response()).startsWith("Error: call_tool needs the "
        + "\"name\" of a tool search_tools loaded");
    for (String provider : List.of("openai", "ollama")) {
      assertOnlyMessagesAppended(provider, requests);
    }
    assertThat(outcome.stats().toolsLoaded()).isEqualTo(CODING.size() + 5);
  }

  @Test
  void theLoopsOwnToolNamesAreTheLoops() {
    for (String name : List.of(ToolSearch.NAME, ToolSearch.CALL_TOOL)) {
      Tool mine = McpCatalogFixture.tools(calls).get(0);
      Tool named = new Tool() {
        @Override
        public String name() {
          return name;
        }

        @Override
        public String description() {
          return mine.description();
        }

        @Override
        public com.fasterxml.jackson.databind.JsonNode parameters() {
          return mine.parameters();
        }

        @Override
        public dev.gadget.core.agent.ToolResult execute(
            com.fasterxml.jackson.databind.JsonNode arguments, ToolContext context) {
          return dev.gadget.core.agent.ToolResult.ok("ran");
        }
      };
      assertThatThrownBy(() -> AgentLoop.builder().llmClient(ScriptedLlmClient.of())
          .tools(List.of(named)).build())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("a tool is named " + name + ", the name ")
          .hasMessageEndingWith("; rename it");
    }
  }
}
