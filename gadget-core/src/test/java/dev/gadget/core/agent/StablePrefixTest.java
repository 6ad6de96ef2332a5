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
 * provider serve each round from its prompt cache: the tools (order and text) and the system
 * prompt never change, and each request begins with the previous one's messages. Within the
 * budget nothing earlier is rewritten, not even a read that a re-read supersedes; over it,
 * pruning clears in batches (each at least a share of the budget, rounds apart), so only a few
 * rounds rewrite earlier messages. The same holds for Anthropic's wire form, breakpoints aside.
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

  /** The requests of a turn of {@code rounds} rounds over ten files of {@code lines} lines. */
  private List<LlmRequest> run(int rounds, int lines, AgentLimits limits) throws Exception {
    List<String> files = new ArrayList<>();
    for (char c = 'a'; c <= 'j'; c++) {
      files.add(c + ".txt");
      files.add(("file " + c + " says hello\n").repeat(lines));
    }
    TestRepo repo = TestRepo.create(tmp, files.toArray(String[]::new));
    ScriptedLlmClient.Builder script = ScriptedLlmClient.builder();
    for (int i = 1; i < rounds; i++) {
      script.reply(round(i));
    }
    script.reply(reply().text("All read.").build());
    ScriptedLlmClient llm = script.build();
    AgentOutcome outcome = AgentLoop.builder().llmClient(llm).limits(limits).build()
        .start(AgentRequest.builder(repo.dir(), "m", "Read every file.").chatId("chat-1")
            .build(), new RecordingListener())
        .outcome().get(60, TimeUnit.SECONDS);
    assertThat(outcome.status()).as(String.valueOf(outcome.message()))
        .isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(llm.requests()).hasSize(rounds);
    return llm.requests();
  }

  @Test
  void withinTheBudgetThirtyRoundsRewriteNoEarlierMessageNotEvenASupersededRead()
      throws Exception {
    List<LlmRequest> requests = run(ROUNDS, 20,
        AgentLimits.DEFAULTS.withMaxRoundTrips(40).withRepeatedToolCallLimit(40));
    assertThat(requests.get(0).cacheKey()).isEqualTo(LlmRequest.cacheKeyOf("chat-1"));
    assertThat(rewrites(requests)).as("rounds that changed an earlier message").isEmpty();
    assertThat(requests.get(ROUNDS - 1).messages()).as("a.txt's first read is still whole")
        .anySatisfy(m -> assertThat(m.content()).startsWith("file a says hello"));
  }

  @Test
  void overTheBudgetPruningClearsInBatchesRoundsApartAndKeepsThePrefixBetweenThem()
      throws Exception {
    int budget = 7_000;
    int rounds = 45;
    List<LlmRequest> requests = run(rounds, 50, AgentLimits.DEFAULTS.withMaxRoundTrips(50)
        .withRepeatedToolCallLimit(50).withContextTokenBudget(budget));
    Map<Integer, Integer> freed = rewrites(requests);
    List<Integer> batches = new ArrayList<>(freed.keySet());
    assertThat(batches).as("batch rounds").hasSizeBetween(2, rounds / 4);
    for (int b = 1; b < batches.size(); b++) {
      assertThat(batches.get(b) - batches.get(b - 1)).as("rounds between batches %s", batches)
          .isGreaterThanOrEqualTo(3);
    }
    freed.forEach((round, tokens) -> assertThat(tokens)
        .as("tokens round %d cleared", round).isGreaterThanOrEqualTo(budget / 10));
    for (LlmRequest r : requests) {
      assertThat(ContextPruner.estimateTokens(r.messages())).isLessThanOrEqualTo(budget);
    }
    List<LlmMessage> last = requests.get(rounds - 1).messages();
    for (int i = last.size() - 2 * ContextPruner.KEPT_RECENT_RESULTS; i < last.size(); i++) {
      assertThat(last.get(i).content()).as("a recent result").doesNotContain("elided");
    }
  }

  /**
   * Checks every round against the one before (tools, system prompt and cache key unchanged,
   * the messages grown by the reply and its result, Anthropic's wire form likewise) and returns
   * the rounds that rewrote earlier messages, with the estimated tokens that cleared.
   */
  private static Map<Integer, Integer> rewrites(List<LlmRequest> requests) {
    LlmRequest first = requests.get(0);
    Map<Integer, Integer> rewritten = new java.util.TreeMap<>();
    JsonNode lastBody = null;
    for (int n = 0; n < requests.size(); n++) {
      LlmRequest current = requests.get(n);
      ObjectNode body = AnthropicRequests.body(current, 8192, 0, Map.of());
      assertThat(AnthropicCache.mark(body, null))
          .isLessThanOrEqualTo(AnthropicCache.MAX_BREAKPOINTS);
      strip(body);
      if (n > 0) {
        assertThat(current.tools()).as("round %d's tools", n + 1).isEqualTo(first.tools());
        assertThat(current.messages().get(0)).as("round %d's system prompt", n + 1)
            .isEqualTo(first.messages().get(0));
        assertThat(current.cacheKey()).isEqualTo(first.cacheKey());
        List<LlmMessage> before = requests.get(n - 1).messages();
        List<LlmMessage> now = current.messages();
        assertThat(now).as("round %d grows by the reply and its result", n + 1)
            .hasSize(before.size() + 2);
        int cleared = 0;
        for (int i = 0; i < before.size(); i++) {
          if (!before.get(i).equals(now.get(i))) {
            cleared += ContextPruner.estimateTokens(before.get(i))
                - ContextPruner.estimateTokens(now.get(i));
            assertThat(now.get(i).role()).as("only tool results and calls are cleared")
                .isIn(Role.TOOL, Role.ASSISTANT);
          }
        }
        if (cleared != 0 || !now.subList(0, before.size()).equals(before)) {
          rewritten.put(n + 1, cleared);
        } else {
          for (int i = 0; i < lastBody.get("messages").size(); i++) {
            assertThat(body.get("messages").get(i)).as("round %d, message %d", n + 1, i)
                .isEqualTo(lastBody.get("messages").get(i));
          }
          assertThat(body.get("system")).isEqualTo(lastBody.get("system"));
          assertThat(body.get("tools")).isEqualTo(lastBody.get("tools"));
        }
      }
      lastBody = body;
    }
    return rewritten;
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
