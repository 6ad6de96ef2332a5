package dev.gadget.core.agent;

import static dev.gadget.core.agent.ProviderBodies.json;
import static dev.gadget.core.agent.ProviderBodies.open;
import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.catalog.McpCatalogFixture;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.catalog.ToolSearch;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.internal.RequestBodies;
import dev.gadget.core.model.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A turn with the coding tools and 304 real MCP tool definitions (18 npm servers' own), driven by
 * {@link ScriptedLlmClient}: deferral, {@code search_tools}, loading, and what each request sends.
 */
class ToolSearchLoopTest extends McpCatalogTurns {

  private AgentOutcome run(LlmClient llm, ToolDeferral deferral) throws Exception {
    AgentLoop loop = AgentLoop.builder().llmClient(llm).tools(tools).toolDeferral(deferral)
        .build();
    return loop.start(AgentRequest.builder(repo.dir(), "m", "File a bug about the login page")
        .build(), new AgentListener() {}).outcome().get(20, TimeUnit.SECONDS);
  }

  private static List<String> names(LlmRequest r) {
    return r.tools().stream().map(ToolDefinition::name).toList();
  }

  @Test
  void theFirstRequestCarriesTheCodingToolsAndSearchThenTheFoundToolRuns() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("search_tools", "{\"query\":\"open an issue on GitHub\"}").build(),
        reply().toolCall("github__create_issue",
            "{\"owner\":\"acme\",\"repo\":\"web\",\"title\":\"Login page broken\"}").build(),
        reply().text("Filed.").build());

    AgentOutcome outcome = run(llm, ToolDeferral.DEFAULT);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    List<LlmRequest> requests = llm.requests();
    List<String> first = new ArrayList<>(CODING);
    first.add(ToolSearch.NAME);
    assertThat(names(requests.get(0))).containsExactlyElementsOf(first);
    assertThat(requests.get(0).tools().get(CODING.size()).description())
        .startsWith("304 more tools (from the MCP servers brave_search, chart, chrome_devtools");
    // the system prompt lists what is offered, not the 304
    assertThat(requests.get(0).messages().get(0).content()).contains("- search_tools: ")
        .doesNotContain("github__create_issue");

    ToolCall search = outcome.toolCalls().get(0);
    assertThat(search.failed()).isFalse();
    ToolSearch.Result found = ToolSearch.read(search.response());
    assertThat(found.outcome()).isEqualTo(ToolSearch.Outcome.FOUND);
    assertThat(found.matches()).hasSize(ToolDeferral.DEFAULT_SEARCH_LIMIT);
    assertThat(found.matches().get(0).name()).isEqualTo("github__create_issue");

    // the found tools are appended, in the order found; nothing before them changes
    List<String> second = new ArrayList<>(first);
    found.matches().forEach(m -> second.add(m.name()));
    assertThat(names(requests.get(1))).containsExactlyElementsOf(second);
    assertThat(names(requests.get(2))).containsExactlyElementsOf(second);
    assertThat(calls).containsExactly(
        "github__create_issue {\"owner\":\"acme\",\"repo\":\"web\",\"title\":\"Login page broken\"}");
    assertThat(outcome.toolCalls().get(1).response()).isEqualTo("ran github__create_issue");
    // the turn's stats: the last request's tools (search_tools not counted) and those left
    assertThat(outcome.stats().toolsLoaded()).isEqualTo(CODING.size() + 5);
    assertThat(outcome.stats().toolsDeferred()).isEqualTo(304 - 5);
    assertThat(outcome.stats().toolsSummary())
        .isEqualTo((CODING.size() + 5) + " tools loaded, 299 deferred");
  }

  @Test
  void consecutiveRequestsKeepTheirPrefixByteForByteButTheAppendedDefinitions() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("read_file", "{\"path\":\"README.md\"}").build(),
        reply().toolCall("search_tools", "{\"query\":\"post a message in a slack channel\"}")
            .build(),
        reply().toolCall("slack__slack_post_message", "{\"channel_id\":\"C1\",\"text\":\"hi\"}")
            .build(),
        reply().text("Posted.").build());

    AgentOutcome outcome = run(llm, ToolDeferral.DEFAULT);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(calls).containsExactly("slack__slack_post_message {\"channel_id\":\"C1\",\"text\":\"hi\"}");
    List<LlmRequest> requests = llm.requests();
    assertThat(requests).hasSize(4);
    int loadedAt = 2; // the request after the search
    // what each provider's client sends: OpenAiClient (and llama.cpp's), OllamaClient and
    // AnthropicClient (its cache breakpoints left out, and a string content as the text block it
    // stands for: neither changes the prompt Anthropic caches)
    for (String provider : List.of("openai", "ollama", "anthropic")) {
      for (int i = 1; i < requests.size(); i++) {
        String toolsBefore = json(provider, requests.get(i - 1), "tools");
        String toolsNow = json(provider, requests.get(i), "tools");
        String messagesBefore = json(provider, requests.get(i - 1), "messages");
        String messagesNow = json(provider, requests.get(i), "messages");
        // every earlier message goes again, byte for byte; new ones only after them
        assertThat(messagesNow).as(provider + " " + i).startsWith(open(messagesBefore));
        if (i == loadedAt) {
          assertThat(toolsNow).as(provider).startsWith(open(toolsBefore))
              .hasSizeGreaterThan(toolsBefore.length());
          assertThat(toolsNow.substring(toolsBefore.length() - 1)).as(provider)
              .startsWith(",{").contains("\"slack__slack_post_message\"");
        } else {
          assertThat(toolsNow).as(provider + " " + i).isEqualTo(toolsBefore);
        }
        // Anthropic's system prompt sits between the tools and the messages: never changed
        assertThat(json(provider, requests.get(i), "system"))
            .isEqualTo(json(provider, requests.get(i - 1), "system"));
      }
    }
  }

  @Test
  void aDeferredToolCalledBeforeItIsLoadedIsAnsweredWithItsDefinitionThenRuns() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("memory__create_entities", "{\"entities\":[]}").build(),
        reply().toolCall("memory__create_entities", "{\"entities\":[{\"name\":\"a\"}]}").build(),
        reply().text("Stored.").build());

    AgentOutcome outcome = run(llm, ToolDeferral.DEFAULT);

    ToolCall first = outcome.toolCalls().get(0);
    assertThat(first.failed()).isTrue();
    assertThat(first.response()).startsWith("Error: memory__create_entities did not run: it was "
        + "not loaded yet. It is loaded now; call it again with arguments that fit its "
        + "definition:\n{\"name\":\"memory__create_entities\",\"description\":")
        .contains("\"parameters\":{");
    assertThat(calls).containsExactly("memory__create_entities {\"entities\":[{\"name\":\"a\"}]}");
    assertThat(names(llm.requests().get(1))).endsWith("search_tools", "memory__create_entities");
  }

  @Test
  void aResumedTurnStartsWithTheToolsItsEarlierRoundsCalledLoaded() throws Exception {
    dev.gadget.core.llm.LlmToolCall earlier = new dev.gadget.core.llm.LlmToolCall("c1",
        "github__get_issue", GadgetJson.mapper().readTree("{\"issue_number\":1}"));
    ScriptedLlmClient llm = ScriptedLlmClient.of(reply().text("Resumed.").build());
    AgentLoop loop = AgentLoop.builder().llmClient(llm).tools(tools).build();
    loop.start(AgentRequest.builder(repo.dir(), "m", "Look at issue 1").resume(List.of(
        dev.gadget.core.llm.LlmMessage.assistant("", null, List.of(earlier)),
        dev.gadget.core.llm.LlmMessage.tool(earlier, "ran github__get_issue"))).build(),
        new AgentListener() {}).outcome().get(20, TimeUnit.SECONDS);

    assertThat(names(llm.requests().get(0))).endsWith("search_tools", "github__get_issue")
        .hasSize(CODING.size() + 2);
  }

  @Test
  void aSearchForNothingLoadsNothing() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("search_tools", "{\"query\":\"zebra quokka\"}").build(),
        reply().text("No such tool.").build());

    AgentOutcome outcome = run(llm, ToolDeferral.DEFAULT);

    assertThat(outcome.toolCalls().get(0).response()).startsWith("No tool matches \"zebra quokka\"");
    assertThat(ToolSearch.read(outcome.toolCalls().get(0).response()).outcome())
        .isEqualTo(ToolSearch.Outcome.NONE);
    assertThat(llm.requests().get(1).tools()).isEqualTo(llm.requests().get(0).tools());
  }

  @Test
  void neverOffersEveryToolAndAFewSmallToolsAreNotDeferred() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(reply().text("Hi.").build());
    AgentOutcome never = run(llm, ToolDeferral.NEVER);
    assertThat(llm.requests().get(0).tools()).hasSize(CODING.size() + 304);
    assertThat(never.stats().toolsLoaded()).isEqualTo(CODING.size() + 304);
    assertThat(never.stats().toolsDeferred()).isZero();
    assertThat(never.stats().toolsSummary()).isEmpty();

    tools = new ArrayList<>(CodingTools.all());
    tools.addAll(McpCatalogFixture.tools(calls).subList(0, 2)); // two of github's
    ScriptedLlmClient small = ScriptedLlmClient.of(reply().text("Hi.").build());
    run(small, ToolDeferral.DEFAULT);
    assertThat(names(small.requests().get(0))).doesNotContain("search_tools").hasSize(CODING.size() + 2);
    ScriptedLlmClient always = ScriptedLlmClient.of(reply().text("Hi.").build());
    run(always, ToolDeferral.ALWAYS);
    assertThat(names(always.requests().get(0))).endsWith("search_tools").hasSize(CODING.size() + 1);
  }

  @Test
  void anOpenAiCompatibleProviderNeverGetsMoreThan128ToolsEvenWithNever() throws Exception {
    ScriptedLlmClient script = ScriptedLlmClient.of(
        reply().toolCall("search_tools", "{\"query\":\"take a screenshot of the page\",\"limit\":20}")
            .build(),
        reply().text("Done.").build());
    LlmClient capped = new LlmClient() {
      @Override
      public LlmCall stream(LlmRequest request, LlmListener listener) {
        return script.stream(request, listener);
      }

      @Override
      public int maxTools() {
        return OpenAiClient.MAX_TOOLS;
      }
    };

    run(capped, ToolDeferral.NEVER);

    assertThat(names(script.requests().get(0))).endsWith("search_tools").hasSize(CODING.size() + 1);
    assertThat(script.requests()).allSatisfy(r -> assertThat(r.tools()).hasSizeLessThanOrEqualTo(128));
    // the client's own guard, for a caller that is not the loop
    LlmRequest all = new LlmRequest("m", List.of(), McpCatalogFixture.definitions(), null, null);
    assertThat(RequestBodies.openAi(all, false, Map.of()).get("tools")).hasSize(128);
    assertThat(dev.gadget.core.llm.internal.ResponsesRequests.body(all, false, false, Map.of())
        .get("tools")).hasSize(128);
    // the Responses API's client says so too
    assertThat(dev.gadget.core.llm.OpenAiResponsesClient.builder().build().maxTools())
        .isEqualTo(128);
  }
}
