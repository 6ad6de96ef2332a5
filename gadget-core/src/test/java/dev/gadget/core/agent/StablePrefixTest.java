package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.internal.AnthropicCache;
import dev.gadget.core.llm.internal.AnthropicRequests;
import dev.gadget.core.model.Role;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prompt prefix stays stable round by round through a long agent turn, which is what lets a
 * provider serve each round from its prompt cache: over 30 scripted rounds, the tools (order and
 * text) and the system prompt never change, and each request begins with the previous one's
 * messages, except the one older result the pruning rule for superseded file reads must rewrite
 * when a file is read again. The same holds for Anthropic's wire form, breakpoints aside.
 */
class StablePrefixTest {
  static final int ROUNDS = 30;

  @TempDir Path tmp;

  /** Round {@code i}'s call: reads of ten files, one re-read of a.txt at round 20, listings. */
  private static ScriptedLlmClient.Reply round(int i) {
    if (i == 20) {
      return reply().text("Reading a.txt again.").toolCall("read_file", "{\"path\":\"a.txt\"}")
          .build();
    }
    if (i % 3 == 0) {
      return reply().thinking("Round " + i + ": look around.")
          .toolCall("list_dir", "{\"path\":\".\"}").build();
    }
    return reply().toolCall("read_file", "{\"path\":\"" + (char) ('a' + i % 10) + ".txt\"}")
        .build();
  }

  @Test
  void thirtyRoundsKeepToolsSystemPromptAndEarlierMessagesExceptWherePruningMust()
      throws Exception {
    List<String> files = new ArrayList<>();
    for (char c = 'a'; c <= 'j'; c++) {
      files.add(c + ".txt");
      files.add(("file " + c + " says hello\n").repeat(20));
    }
    TestRepo repo = TestRepo.create(tmp, files.toArray(String[]::new));
    ScriptedLlmClient.Builder script = ScriptedLlmClient.builder();
    for (int i = 1; i < ROUNDS; i++) {
      script.reply(round(i));
    }
    script.reply(reply().text("All read.").build());
    ScriptedLlmClient llm = script.build();

    AgentOutcome outcome = AgentLoop.builder().llmClient(llm)
        .limits(AgentLimits.DEFAULTS.withMaxRoundTrips(40).withRepeatedToolCallLimit(40))
        .build()
        .start(AgentRequest.builder(repo.dir(), "m", "Read every file.").chatId("chat-1")
            .build(), new RecordingListener())
        .outcome().get(60, TimeUnit.SECONDS);

    assertThat(outcome.status()).as(String.valueOf(outcome.message()))
        .isEqualTo(AgentOutcome.Status.FINISHED);
    List<LlmRequest> requests = llm.requests();
    assertThat(requests).hasSize(ROUNDS);
    LlmRequest first = requests.get(0);
    assertThat(first.cacheKey()).isEqualTo(LlmRequest.cacheKeyOf("chat-1"));
    List<Integer> rewrittenRounds = new ArrayList<>();
    for (int n = 1; n < ROUNDS; n++) {
      LlmRequest previous = requests.get(n - 1);
      LlmRequest current = requests.get(n);
      assertThat(current.tools()).as("round %d's tools", n + 1).isEqualTo(first.tools());
      assertThat(current.messages().get(0)).as("round %d's system prompt", n + 1)
          .isEqualTo(first.messages().get(0));
      assertThat(current.cacheKey()).isEqualTo(first.cacheKey());
      List<LlmMessage> before = previous.messages();
      List<LlmMessage> now = current.messages();
      assertThat(now).as("round %d grows by the reply and its result", n + 1)
          .hasSize(before.size() + 2);
      List<Integer> changed = new ArrayList<>();
      for (int i = 0; i < before.size(); i++) {
        if (!before.get(i).equals(now.get(i))) {
          changed.add(i);
        }
      }
      if (!changed.isEmpty()) {
        rewrittenRounds.add(n + 1);
        // only the older read of the file just read again, summarised once the newer is in
        String file = current.messages().get(now.size() - 2).toolCalls().get(0).arguments()
            .get("path").asText();
        assertThat(changed).singleElement().satisfies(i -> {
          assertThat(now.get(i).role()).isEqualTo(Role.TOOL);
          assertThat(now.get(i).content())
              .startsWith("[read_file output for " + file + " elided: a later read");
        });
      }
    }
    List<Integer> rereads = new ArrayList<>();
    java.util.Set<String> read = new java.util.HashSet<>();
    for (int i = 1; i < ROUNDS; i++) {
      String file = i == 20 ? "a.txt" : i % 3 == 0 ? null : (char) ('a' + i % 10) + ".txt";
      if (file != null && !read.add(file)) {
        rereads.add(i + 1); // reply i's result is in request i, the round i + 1
      }
    }
    assertThat(rewrittenRounds).as("rounds that changed an earlier message")
        .isEqualTo(rereads).hasSizeLessThan(ROUNDS / 2);

    // Anthropic's wire form: each body's messages, breakpoints aside, begin with the last one's
    JsonNode last = null;
    for (int n = 0; n < ROUNDS; n++) {
      ObjectNode body = AnthropicRequests.body(requests.get(n), 8192, 0, Map.of());
      assertThat(AnthropicCache.mark(body, null)).isLessThanOrEqualTo(AnthropicCache.MAX_BREAKPOINTS);
      strip(body);
      if (last != null && !rewrittenRounds.contains(n + 1)) {
        JsonNode messages = body.get("messages");
        for (int i = 0; i < last.get("messages").size(); i++) {
          assertThat(messages.get(i)).as("round %d, message %d", n + 1, i)
              .isEqualTo(last.get("messages").get(i));
        }
        assertThat(body.get("system")).isEqualTo(last.get("system"));
        assertThat(body.get("tools")).isEqualTo(last.get("tools"));
      }
      last = body;
    }
  }

  /** The body without its breakpoints, each block in the form it has without one. */
  private static void strip(JsonNode node) {
    if (node.isObject()) {
      ((ObjectNode) node).remove("cache_control");
      JsonNode content = node.get("content");
      if (content != null && content.isArray() && content.size() == 1
          && "text".equals(content.get(0).path("type").asText()) && node.has("role")) {
        ((ObjectNode) node).put("content", content.get(0).get("text").asText());
      }
      JsonNode system = node.get("system");
      if (system != null && system.isArray()) {
        ((ObjectNode) node).put("system", system.get(0).get("text").asText());
      }
      node.forEach(StablePrefixTest::strip);
    } else if (node.isArray()) {
      node.forEach(StablePrefixTest::strip);
    }
  }
}
