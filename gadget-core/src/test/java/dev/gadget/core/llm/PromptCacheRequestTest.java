package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gadget.core.llm.LlmTestServer.Delivery;
import dev.gadget.core.llm.LlmTestServer.Recorded;
import dev.gadget.core.model.Role;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What each HTTP client asks of the provider's prompt cache, checked on the requests a real local
 * HTTP server receives: Anthropic's {@code cache_control} breakpoints, OpenAI's
 * {@code prompt_cache_key}, llama.cpp's slot and Ollama's {@code keep_alive}; and the cache
 * counts read back from authored streams.
 */
class PromptCacheRequestTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = LlmRequest.cacheKeyOf("chat-1");

  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  private static ToolDefinition tool(String name) {
    return new ToolDefinition(name, "The " + name + " tool.",
        JSON.createObjectNode().put("type", "object"));
  }

  /** System, prompt, then {@code rounds} rounds of a signed-thinking tool call and its result. */
  private static LlmRequest agentRound(int rounds, String key) {
    List<LlmMessage> messages = new ArrayList<>();
    messages.add(LlmMessage.system("You are Gadget."));
    messages.add(LlmMessage.user("Fix the bug."));
    for (int i = 1; i <= rounds; i++) {
      LlmToolCall call = new LlmToolCall("toolu_" + i, "read_file",
          JSON.createObjectNode().put("path", "F" + i + ".java"));
      messages.add(new LlmMessage(Role.ASSISTANT, "", "thought " + i, List.of(call), null, null,
          List.of(ThinkingBlock.signed("thought " + i, "sig" + i))));
      messages.add(LlmMessage.tool(call, "contents of F" + i));
    }
    return LlmRequest.builder("claude-sonnet-4-5", messages)
        .tools(List.of(tool("read_file"), tool("write_file"))).cacheKey(key).build();
  }

  private Recorded send(LlmClient client, LlmRequest request, String recording) {
    server.enqueue(Recordings.load(recording)).header("Content-Type",
        recording.endsWith(".ndjson") ? "application/x-ndjson" : "text/event-stream");
    RecordingListener l = new RecordingListener();
    client.stream(request, l);
    l.await().completed();
    return server.takeRequest();
  }

  private static List<String> breakpoints(JsonNode body) {
    List<String> found = new ArrayList<>();
    collect(body, "$", found);
    return found;
  }

  private static void collect(JsonNode node, String path, List<String> found) {
    if (node.has("cache_control")) {
      found.add(path);
    }
    if (node.isObject()) {
      node.fields().forEachRemaining(e -> collect(e.getValue(), path + "." + e.getKey(), found));
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        collect(node.get(i), path + "[" + i + "]", found);
      }
    }
  }

  private AnthropicClient.Builder anthropic() {
    return AnthropicClient.builder().baseUrl(server.url()).apiKey("sk-ant-test")
        .retryPolicy(RetryPolicy.NONE);
  }

  @Test
  void anthropicMarksTheToolsTheSystemThePreviousRoundAndTheNewestMessageFiveMinutesByDefault() {
    JsonNode body = send(anthropic().build(), agentRound(2, KEY), "anthropic/text.sse").json();
    // messages: [0] prompt, [1] assistant, [2] results of round 1, [3] assistant, [4] results
    assertThat(breakpoints(body)).containsExactlyInAnyOrder("$.tools[1]", "$.system[0]",
        "$.messages[2].content[0]", "$.messages[4].content[0]");
    assertThat(body.get("system").get(0).get("text").asText()).isEqualTo("You are Gadget.");
    assertThat(body.get("tools").get(1).get("cache_control"))
        .isEqualTo(JSON.createObjectNode().put("type", "ephemeral"));
    assertThat(body.get("messages").get(4).get("content").get(0).get("type").asText())
        .isEqualTo("tool_result");
    assertThat(body.get("messages").get(0).get("content").asText())
        .as("an earlier message keeps its plain form").isEqualTo("Fix the bug.");
  }

  @Test
  void anthropicsFirstRoundMarksThePromptAndTheOneHourTtlIsSentOnEveryBreakpoint() {
    AnthropicClient client = anthropic().cacheTtl(AnthropicClient.CacheTtl.ONE_HOUR).build();
    JsonNode body = send(client, agentRound(0, null), "anthropic/text.sse").json();
    assertThat(breakpoints(body)).containsExactlyInAnyOrder("$.tools[1]", "$.system[0]",
        "$.messages[0].content[0]");
    assertThat(body.get("messages").get(0).get("content").get(0).get("text").asText())
        .isEqualTo("Fix the bug.");
    for (JsonNode control : body.findValues("cache_control")) {
      assertThat(control).isEqualTo(JSON.createObjectNode().put("type", "ephemeral")
          .put("ttl", "1h"));
    }
  }

  @Test
  void anthropicNeverPutsABreakpointOnThinkingAndNeverMoreThanFour() {
    List<LlmMessage> messages = new ArrayList<>(agentRound(3, null).messages());
    messages.add(new LlmMessage(Role.ASSISTANT, "", "only thinking", List.of(), null, null,
        List.of(ThinkingBlock.signed("only thinking", "sigX"))));
    messages.add(LlmMessage.user("and now?"));
    JsonNode body = send(anthropic().build(), LlmRequest.builder("claude-sonnet-4-5", messages)
        .tools(List.of(tool("read_file"))).build(), "anthropic/text.sse").json();
    assertThat(breakpoints(body)).hasSizeLessThanOrEqualTo(4)
        .allSatisfy(p -> assertThat(p).doesNotContain("thinking"))
        .containsExactlyInAnyOrder("$.tools[0]", "$.system[0]", "$.messages[6].content[0]",
            "$.messages[8].content[0]");
    for (JsonNode block : body.findParents("signature")) {
      assertThat(block.has("cache_control")).isFalse();
    }
  }

  @Test
  void anthropicWithoutCachingSendsNoBreakpointAndTheSystemAsText() {
    JsonNode body = send(anthropic().promptCaching(false).build(), agentRound(2, KEY),
        "anthropic/text.sse").json();
    assertThat(breakpoints(body)).isEmpty();
    assertThat(body.get("system").asText()).isEqualTo("You are Gadget.");
    assertThat(body.has("prompt_cache_key")).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anthropicCacheReadsAndWritesComeBackInTheUsage(Delivery delivery) {
    server.enqueue(Recordings.load("anthropic/cache-usage.sse")).delivery(delivery)
        .header("Content-Type", "text/event-stream");
    RecordingListener l = new RecordingListener();
    anthropic().build().stream(agentRound(1, KEY), l);
    LlmUsage u = l.assertContract().completed().usage();
    assertThat(u.cacheReadTokens()).isEqualTo(1024);
    assertThat(u.cacheWriteTokens()).isEqualTo(188086);
    assertThat(u.promptTokens()).isEqualTo(21 + 188086 + 1024);
  }

  @Test
  void openAiSendsThePromptCacheKeyToApiOpenAiComOnly() {
    assertThat(OpenAiClient.isOpenAi(URI.create("https://api.openai.com/v1"))).isTrue();
    assertThat(OpenAiClient.isOpenAi(URI.create("https://openrouter.ai/api/v1"))).isFalse();
    assertThat(OpenAiClient.isOpenAi(server.v1())).isFalse();
    OpenAiClient strict = OpenAiClient.builder().baseUrl(server.v1()).build();
    JsonNode plain = send(strict, agentRound(1, KEY), "openai/cached-tokens.sse").json();
    assertThat(plain.has("prompt_cache_key")).as("a server that is not OpenAI's gets no key")
        .isFalse();
    assertThat(plain.has("cache_prompt")).isFalse();
    assertThat(plain.has("id_slot")).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void openAiSendsTheChatsHashedKeyWhenToldAndReadsCachedTokens(Delivery delivery) {
    OpenAiClient client = OpenAiClient.builder().baseUrl(server.v1()).promptCacheKey(true)
        .build();
    server.enqueue(Recordings.load("openai/cached-tokens.sse")).delivery(delivery)
        .header("Content-Type", "text/event-stream");
    RecordingListener l = new RecordingListener();
    client.stream(agentRound(1, KEY), l);
    LlmUsage u = l.assertContract().completed().usage();
    assertThat(u).isEqualTo(LlmUsage.ofTokens(2006, 300, 0, 1920, 0));
    JsonNode body = server.takeRequest().json();
    assertThat(body.get("prompt_cache_key").asText()).isEqualTo(KEY)
        .startsWith("gadget-").hasSize(7 + 32).doesNotContain("chat-1");
    assertThat(LlmRequest.cacheKeyOf("chat-1")).as("stable").isEqualTo(KEY);
    assertThat(LlmRequest.cacheKeyOf("chat-2")).isNotEqualTo(KEY);
  }

  @Test
  void openAiSendsNoKeyForARequestWithoutOneAndAParamOverridesIt() {
    OpenAiClient client = OpenAiClient.builder().baseUrl(server.v1()).promptCacheKey(true)
        .build();
    assertThat(send(client, agentRound(1, null), "openai/cached-tokens.sse").json()
        .has("prompt_cache_key")).isFalse();
    OpenAiClient fixed = OpenAiClient.builder().baseUrl(server.v1()).promptCacheKey(true)
        .param("prompt_cache_key", "mine").build();
    assertThat(send(fixed, agentRound(1, KEY), "openai/cached-tokens.sse").json()
        .get("prompt_cache_key").asText()).isEqualTo("mine");
  }

  @Test
  void llamaCppGivesEachChatASlotOfItsOwnFromPropsAndTheLeastRecentlyUsedOneAfterThat() {
    OpenAiClient client = OpenAiClient.builder().baseUrl(server.v1()).llamaCpp(true).build();
    server.enqueue("{\"total_slots\":2,\"default_generation_settings\":{\"n_ctx\":8192},"
        + "\"model_path\":\"tiny.gguf\"}").header("Content-Type", "application/json");
    assertThat(client.contextWindow("tiny")).hasValue(8192);
    Recorded props = server.takeRequest();
    assertThat(props.method()).isEqualTo("GET");
    assertThat(props.path()).isEqualTo("/props");
    assertThat(client.contextWindow("tiny")).as("asked once").hasValue(8192);

    String a = LlmRequest.cacheKeyOf("chat-a");
    String b = LlmRequest.cacheKeyOf("chat-b");
    String c = LlmRequest.cacheKeyOf("chat-c");
    List<Integer> slots = new ArrayList<>();
    for (String key : List.of(a, b, a, c, b)) {
      JsonNode body = send(client, agentRound(1, key), "openai/llamacpp-timings.sse").json();
      assertThat(body.get("cache_prompt").asBoolean()).isTrue();
      assertThat(body.has("prompt_cache_key")).isFalse();
      slots.add(body.get("id_slot").asInt());
    }
    // a: 0, b: 1, a again: 0; c takes b's (least recently used); b comes back to a's
    assertThat(slots).containsExactly(0, 1, 0, 1, 0);
    assertThat(server.requestCount()).isEqualTo(6);
  }

  @Test
  void llamaCppWithoutAKnownSlotCountSendsNoSlotAndAGivenCountNeedsNoProps() {
    OpenAiClient unknown = OpenAiClient.builder().baseUrl(server.v1()).llamaCpp(true).build();
    JsonNode body = send(unknown, agentRound(1, KEY), "openai/llamacpp-timings.sse").json();
    assertThat(body.get("cache_prompt").asBoolean()).isTrue();
    assertThat(body.has("id_slot")).isFalse();
    OpenAiClient given = OpenAiClient.builder().baseUrl(server.url()).llamaCppSlots(4).build();
    assertThat(send(given, agentRound(1, KEY), "openai/llamacpp-timings.sse").json()
        .get("id_slot").asInt()).isZero();
    assertThat(server.requestCount()).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void llamaCppsTimingsCacheNIsTheCacheReadWhenTheUsageSaysNone(Delivery delivery) {
    OpenAiClient client = OpenAiClient.builder().baseUrl(server.v1()).llamaCppSlots(1).build();
    server.enqueue(Recordings.load("openai/llamacpp-timings.sse")).delivery(delivery)
        .header("Content-Type", "text/event-stream");
    RecordingListener l = new RecordingListener();
    client.stream(agentRound(1, KEY), l);
    assertThat(l.assertContract().completed().usage())
        .isEqualTo(LlmUsage.ofTokens(1210, 7, 0, 1187, 0));
  }

  @Test
  void ollamaSendsKeepAliveWhenToldAndNothingOtherwise() {
    OllamaClient kept = OllamaClient.builder().baseUrl(server.url())
        .keepAlive(Duration.ofMinutes(30)).build();
    assertThat(send(kept, agentRound(1, KEY), "ollama/metrics-missing.ndjson").json()
        .get("keep_alive").asText()).isEqualTo("1800s");
    OllamaClient forever = OllamaClient.builder().baseUrl(server.url())
        .keepAlive(Duration.ofSeconds(-1)).build();
    assertThat(send(forever, agentRound(1, KEY), "ollama/metrics-missing.ndjson").json()
        .get("keep_alive").asInt()).isEqualTo(-1);
    OllamaClient plain = OllamaClient.builder().baseUrl(server.url()).build();
    JsonNode body = send(plain, agentRound(1, KEY), "ollama/metrics-missing.ndjson").json();
    assertThat(body.has("keep_alive")).isFalse();
    assertThat(body.has("prompt_cache_key")).isFalse();
  }
}
