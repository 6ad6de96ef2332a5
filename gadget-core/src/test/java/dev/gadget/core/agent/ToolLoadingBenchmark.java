package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.catalog.McpCatalogFixture;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.llm.ToolLoading;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What each way of loading found tools costs in prompt processed again (not a test): one turn of
 * nine requests over the coding tools and 304 real MCP tools (deferred), which reads four files
 * of about 1,300 tokens and loads tools by two searches, run once per {@link ToolLoading}. Each
 * request is rendered in the order the provider builds its prompt (OpenAI-compatible servers and
 * Ollama: the tools, then the messages; Anthropic: the tools not deferred, the system prompt, the
 * messages, with each {@code tool_reference} as the definition it stands for), and compared with
 * the request before: what the two share from the start is cached; the rest is processed.
 *
 * <pre>
 * ./mvnw -B -o -q -pl gadget-core test-compile exec:java \
 *     -Dexec.mainClass=dev.gadget.core.agent.ToolLoadingBenchmark -Dexec.classpathScope=test
 * </pre>
 */
public final class ToolLoadingBenchmark {
  private static final String POST = "{\"channel_id\":\"C1\",\"text\":\"hi\"}";
  private static final String ISSUE = "{\"owner\":\"acme\",\"repo\":\"web\",\"title\":\"Login\"}";

  private ToolLoadingBenchmark() {}

  /** Runs the turn in each way and prints the table. */
  public static void main(String[] args) throws Exception {
    System.out.printf(Locale.ROOT, "%-10s %-10s %9s %10s %11s %12s%n", "loading", "provider",
        "requests", "processed", "again", "at the loads");
    for (ToolLoading loading : ToolLoading.values()) {
      List<LlmRequest> requests = turn(loading);
      List<String> providers = loading == ToolLoading.REFERENCE ? List.of("anthropic")
          : List.of("openai", "ollama", "anthropic");
      for (String provider : providers) {
        int processed = 0;
        int again = 0;
        int atLoads = 0;
        String before = "";
        for (int i = 0; i < requests.size(); i++) {
          String now = prompt(provider, requests.get(i));
          int shared = commonPrefix(before, now);
          processed += tokens(now.length() - shared);
          again += tokens(before.length() - shared);
          if (i == 4 || i == 7) { // the requests right after the two searches
            atLoads += tokens(before.length() - shared);
          }
          before = now;
        }
        System.out.printf(Locale.ROOT, "%-10s %-10s %9d %10d %11d %12d%n",
            loading.name().toLowerCase(Locale.ROOT), provider, requests.size(), processed,
            again, atLoads);
      }
    }
    System.out.println("(tokens, three characters a token: processed = what each request did "
        + "not share with the one before, summed; again = the earlier prompt among it)");
  }

  /** The requests of the turn, with found tools loaded as {@code loading} says. */
  static List<LlmRequest> turn(ToolLoading loading) throws Exception {
    Path dir = Files.createTempDirectory("tool-loading-bench");
    String page = "A line of the project's notes, as long as many are in real files.\n"
        .repeat(60);
    TestRepo repo = TestRepo.create(dir, "a.md", page, "b.md", page, "c.md", page, "d.md", page);
    boolean via = loading == ToolLoading.IN_RESULT;
    ScriptedLlmClient llm = ScriptedLlmClient.builder().toolLoading(loading)
        .reply(reply().toolCall("read_file", "{\"path\":\"a.md\"}").build())
        .reply(reply().toolCall("read_file", "{\"path\":\"b.md\"}").build())
        .reply(reply().toolCall("read_file", "{\"path\":\"c.md\"}").build())
        .reply(reply().toolCall("search_tools", "{\"query\":\"post a message in a slack "
            + "channel\"}").build())
        .reply(call(via, "slack__slack_post_message", POST))
        .reply(reply().toolCall("read_file", "{\"path\":\"d.md\"}").build())
        .reply(reply().toolCall("search_tools", "{\"query\":\"open an issue on GitHub\"}")
            .build())
        .reply(call(via, "github__create_issue", ISSUE))
        .reply(reply().text("Done.").build()).build();
    List<Tool> tools = new ArrayList<>(CodingTools.all());
    tools.addAll(McpCatalogFixture.tools(McpCatalogFixture.calls()));
    AgentLoop.builder().llmClient(llm).tools(tools).toolDeferral(ToolDeferral.DEFAULT).build()
        .start(AgentRequest.builder(repo.dir(), "m", "Tell the team and file the bug").build(),
            new AgentListener() {})
        .outcome().get(60, TimeUnit.SECONDS);
    return llm.requests();
  }

  private static ScriptedLlmClient.Reply call(boolean via, String name, String args) {
    return via ? reply().toolCall("call_tool", "{\"name\":\"" + name + "\",\"arguments\":"
        + args + "}").build() : reply().toolCall(name, args).build();
  }

  /** {@code r}'s prompt as {@code provider} builds it, as text. */
  static String prompt(String provider, LlmRequest r) throws Exception {
    String tools = ProviderBodies.json(provider, r, "tools");
    String messages = ProviderBodies.json(provider, r, "messages");
    if (!"anthropic".equals(provider)) {
      return tools + messages;
    }
    // deferred tools are not in the prompt; a reference stands for the definition it loads
    ArrayNode shown = GadgetJson.mapper().createArrayNode();
    for (JsonNode t : GadgetJson.mapper().readTree(tools)) {
      if (!t.path("defer_loading").asBoolean(false)) {
        shown.add(t);
      }
    }
    Map<String, ToolDefinition> byName = new java.util.HashMap<>();
    r.deferredTools().forEach(d -> byName.put(d.name(), d));
    for (ToolDefinition d : byName.values()) {
      messages = messages.replace("{\"type\":\"tool_reference\",\"tool_name\":\"" + d.name()
          + "\"}", GadgetJson.mapper().writeValueAsString(d));
    }
    return shown + ProviderBodies.json(provider, r, "system") + messages;
  }

  private static int commonPrefix(String a, String b) {
    int n = Math.min(a.length(), b.length());
    int i = 0;
    while (i < n && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    return i;
  }

  private static int tokens(int chars) {
    return (chars + 2) / 3;
  }
}
