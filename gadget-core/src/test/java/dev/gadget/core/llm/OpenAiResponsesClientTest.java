package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.LlmTestServer.Delivery;
import dev.gadget.core.llm.LlmTestServer.Recorded;
import dev.gadget.core.llm.RecordingListener.Outcome;
import dev.gadget.core.model.ModelParams;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link OpenAiResponsesClient} against a real local HTTP server replaying authored Responses
 * API streams whole, one byte per write and in random splits; the requests it sends, with the
 * encrypted reasoning carried into the next request of a turn; errors and retries.
 */
class OpenAiResponsesClientTest {
  static final LlmRequest HI = new LlmRequest("gpt-5", List.of(LlmMessage.user("hi")), null,
      null, null);

  private final LlmTestServer server = LlmTestServer.start();
  private final OpenAiResponsesClient client = OpenAiResponsesClient.builder()
      .baseUrl(server.v1()).apiKey("sk-test-resp-123").retryPolicy(OllamaClientTest.FAST).build();
  private RecordingListener lastListener;

  @AfterEach
  void stop() {
    server.close();
  }

  private Outcome play(String recording, Delivery delivery) {
    StreamReplay.Played p = StreamReplay.play(server, client, HI,
        Recordings.load("openai-responses/" + recording), "text/event-stream; charset=utf-8",
        delivery);
    lastListener = p.listener();
    return p.outcome();
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void textWithCachedInputTokens(Delivery delivery) {
    LlmCompletion c = play("text.sse", delivery).completed();
    assertThat(c.text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(c.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(c.providerFinishReason()).isEqualTo("completed");
    assertThat(c.usage()).isEqualTo(LlmUsage.ofTokens(2006, 19, 0, 1920, 0));
    assertThat(lastListener.events)
        .containsExactly("text:Grüße, ", "text:世界 🌍!", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void reasoningSummaryAsThinkingThenTwoFunctionCalls(Delivery delivery) {
    LlmCompletion c = play("reasoning-tool-calls.sse", delivery).completed();
    assertThat(c.thinking()).isEqualTo("**Reading the file**\n\nI need to see Greeting.java "
        + "first.\n\nThen list the sources.");
    assertThat(c.toolCalls()).extracting(LlmToolCall::id)
        .containsExactly("call_Xq3mB2kLr8", "call_Pz7Tn4cVw1");
    assertThat(c.toolCalls().get(0).arguments().get("note").asText())
        .isEqualTo("say \"hi\"\nécrit");
    assertThat(c.toolCalls().get(1).arguments().get("depth").asInt()).isEqualTo(2);
    assertThat(c.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(c.usage()).isEqualTo(LlmUsage.ofTokens(5210, 412, 320, 4864, 0));
    assertThat(c.thinkingBlocks()).singleElement().satisfies(b -> {
      assertThat(b.text()).isEqualTo(c.thinking());
      assertThat(b.redactedData()).contains("\"encrypted_content\":\"gAAAAABor_wM")
          .doesNotContain("rs_68af");
    });
    assertThat(lastListener.events).containsExactly("thinking:**Reading the file**\n\n",
        "thinking:I need to see Greeting.java first.", "thinking:\n\n",
        "thinking:Then list the sources.", "tool:read_file", "tool:list_dir", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anIncompleteResponseIsALengthFinishWithItsText(Delivery delivery) {
    LlmCompletion c = play("incomplete.sse", delivery).completed();
    assertThat(c.text()).isEqualTo("The answer is");
    assertThat(c.finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(c.providerFinishReason()).isEqualTo("max_output_tokens");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aFailedResponseEndsAsARetryableStreamErrorWithThePartialText(Delivery delivery) {
    Outcome o = play("failed.sse", delivery);
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(o.failed().providerCode()).isEqualTo("server_error");
    assertThat(o.failed().isRetryable()).isTrue();
    assertThat(o.failed()).hasMessageStartingWith("OpenAI Responses API reported an error "
        + "mid-stream: The server had an error");
    assertThat(o.partial().text()).isEqualTo("Partial");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anErrorEventEndsTheStreamAndIsNotRetryableWhenItIsThePromptsFault(Delivery delivery) {
    Outcome o = play("error-event.sse", delivery);
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(o.failed().providerCode()).isEqualTo("invalid_prompt");
    assertThat(o.failed().providerMessage()).isEqualTo("Invalid prompt: your prompt was flagged.");
    assertThat(o.failed().isRetryable()).isFalse();
  }

  @Test
  void anErrorEventThatNestsItsErrorIsReadToo() {
    server.enqueue("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
        + "\"server_error\",\"code\":\"server_error\",\"message\":\"Try again.\"}}\n\n")
        .header("Content-Type", "text/event-stream");
    RecordingListener l = new RecordingListener();
    client.stream(HI, l);
    LlmException e = l.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(e.providerMessage()).isEqualTo("Try again.");
    assertThat(e.isRetryable()).isTrue();
  }

  @Test
  void aBodyCutInsideAnEventEndsEarlyWithThePartialText() {
    String body = Recordings.load("openai-responses/text.sse");
    int second = body.indexOf("Grüße, ") + 30;
    server.enqueue(body.substring(0, body.indexOf("世界", second) + 1))
        .header("Content-Type", "text/event-stream");
    RecordingListener l = new RecordingListener();
    client.stream(HI, l);
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.PROTOCOL);
    assertThat(o.failed()).hasMessage("OpenAI Responses stream ended before response.completed");
    assertThat(o.partial().text()).isEqualTo("Grüße, ");
  }

  @Test
  void sendsTheResponsesRequestForAReasoningModel() {
    server.enqueue(Recordings.load("openai-responses/text.sse"));
    RecordingListener l = new RecordingListener();
    OpenAiResponsesClient c = OpenAiResponsesClient.builder().baseUrl(server.v1())
        .apiKey("sk-test-resp-123").promptCacheKey(true).build();
    LlmRequest r = LlmRequest.builder("gpt-5", List.of(LlmMessage.system("Be brief."),
            LlmMessage.user("hi")))
        .tools(List.of(new ToolDefinition("read_file", "Reads a file.",
            ContractBodies.schema("path"))))
        .params(new ModelParams(null, null, null, 2048, null)).thinkLevel("high")
        .cacheKey(LlmRequest.cacheKeyOf("chat-1")).build();
    c.stream(r, l);
    l.await().completed();
    Recorded rec = server.takeRequest();
    assertThat(rec.path()).isEqualTo("/v1/responses");
    assertThat(rec.header("Authorization")).isEqualTo("Bearer sk-test-resp-123");
    assertThat(rec.header("Accept")).isEqualTo("text/event-stream");
    JsonNode j = rec.json();
    assertThat(j.get("input").toString()).isEqualTo("[{\"role\":\"system\",\"content\":"
        + "\"Be brief.\"},{\"role\":\"user\",\"content\":\"hi\"}]");
    assertThat(j.get("tools").get(0).toString()).isEqualTo("{\"type\":\"function\","
        + "\"name\":\"read_file\",\"description\":\"Reads a file.\",\"parameters\":"
        + ContractBodies.schema("path") + ",\"strict\":false}");
    assertThat(j.get("stream").asBoolean()).isTrue();
    assertThat(j.get("store").asBoolean()).isFalse();
    assertThat(j.get("include").toString()).isEqualTo("[\"reasoning.encrypted_content\"]");
    assertThat(j.get("reasoning").toString())
        .isEqualTo("{\"effort\":\"high\",\"summary\":\"auto\"}");
    assertThat(j.get("max_output_tokens").asInt()).isEqualTo(2048);
    assertThat(j.get("prompt_cache_key").asText()).isEqualTo(LlmRequest.cacheKeyOf("chat-1"));
    assertThat(c.toString()).doesNotContain("sk-test-resp-123");
  }

  @Test
  void aModelThatDoesNotReasonGetsNoReasoningFieldsAndALocalServerNoCacheKey() {
    server.enqueue(Recordings.load("openai-responses/text.sse"));
    RecordingListener l = new RecordingListener();
    client.stream(LlmRequest.builder("gpt-4.1", List.of(LlmMessage.user("hi")))
        .cacheKey("gadget-abc").build(), l);
    l.await().completed();
    JsonNode j = server.takeRequest().json();
    assertThat(j.has("reasoning")).isFalse();
    assertThat(j.has("include")).isFalse();
    assertThat(j.has("prompt_cache_key")).as("not api.openai.com").isFalse();

    server.enqueue(Recordings.load("openai-responses/text.sse"));
    RecordingListener quiet = new RecordingListener();
    OpenAiResponsesClient.builder().baseUrl(server.v1()).reasoningSummary(false).build()
        .stream(HI, quiet);
    quiet.await().completed();
    JsonNode unsummarised = server.takeRequest().json();
    assertThat(unsummarised.has("reasoning")).as("gpt-5 without a level or a summary").isTrue();
    assertThat(unsummarised.get("reasoning").has("summary")).isFalse();
    assertThat(unsummarised.get("include").toString())
        .isEqualTo("[\"reasoning.encrypted_content\"]");
  }

  @Test
  void theEncryptedReasoningGoesBackWithTheToolResultsOfTheTurn() {
    server.enqueue(Recordings.load("openai-responses/reasoning-tool-calls.sse"));
    server.enqueue(Recordings.load("openai-responses/text.sse"));
    List<LlmMessage> messages = new ArrayList<>(List.of(LlmMessage.user("Fix the greeting")));
    RecordingListener first = new RecordingListener();
    client.stream(LlmRequest.builder("gpt-5", messages).build(), first);
    LlmCompletion reply = first.await().completed();
    messages.add(LlmMessage.assistant(reply));
    messages.add(LlmMessage.tool(reply.toolCalls().get(0), "class Greeting {}"));
    messages.add(LlmMessage.tool(reply.toolCalls().get(1), "Greeting.java"));
    RecordingListener second = new RecordingListener();
    client.stream(LlmRequest.builder("gpt-5", messages).build(), second);
    assertThat(second.await().completed().text()).isEqualTo("Grüße, 世界 🌍!");
    server.takeRequest();
    JsonNode input = server.takeRequest().json().get("input");
    assertThat(input).hasSize(6);
    assertThat(input.get(1).toString()).isEqualTo("{\"type\":\"reasoning\",\"summary\":["
        + "{\"type\":\"summary_text\",\"text\":\"**Reading the file**\\n\\nI need to see "
        + "Greeting.java first.\"},{\"type\":\"summary_text\",\"text\":\"Then list the "
        + "sources.\"}],\"encrypted_content\":\"gAAAAABor_wMkZ3vQ0x1c2VkLXJlYXNvbmluZy1ibG9i"
        + "LWZvci10ZXN0cw==\"}");
    assertThat(input.get(2).toString()).isEqualTo("{\"type\":\"function_call\",\"call_id\":"
        + "\"call_Xq3mB2kLr8\",\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":"
        + "\\\"src/Greeting.java\\\",\\\"note\\\":\\\"say \\\\\\\"hi\\\\\\\"\\\\nécrit\\\"}\"}");
    assertThat(input.get(3).get("call_id").asText()).isEqualTo("call_Pz7Tn4cVw1");
    assertThat(input.get(4).toString()).isEqualTo("{\"type\":\"function_call_output\","
        + "\"call_id\":\"call_Xq3mB2kLr8\",\"output\":\"class Greeting {}\"}");
    assertThat(input.get(5).get("output").asText()).isEqualTo("Greeting.java");
  }

  @Test
  void rateLimitedAndConflictAreRetriedACallersMistakeIsNot() {
    server.enqueue(429, "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\","
        + "\"code\":\"rate_limit_exceeded\"}}").header("Retry-After", "0");
    server.enqueue(409, "{\"error\":{\"message\":\"conflict\",\"type\":null,\"code\":null}}");
    server.enqueue(Recordings.load("openai-responses/text.sse")).delivery(Delivery.RANDOM_SPLITS);
    RecordingListener ok = new RecordingListener();
    client.stream(HI, ok);
    assertThat(ok.assertContract().completed().text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(server.requestCount()).isEqualTo(3);

    server.enqueue(400, "{\"error\":{\"message\":\"Unsupported parameter: 'temperature' is not "
        + "supported with this model.\",\"type\":\"invalid_request_error\",\"param\":"
        + "\"temperature\",\"code\":\"unsupported_parameter\"}}");
    RecordingListener refused = new RecordingListener();
    client.stream(HI, refused);
    LlmException e = refused.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.HTTP);
    assertThat(e.statusCode()).isEqualTo(400);
    assertThat(e.providerCode()).isEqualTo("unsupported_parameter");
    assertThat(e).hasMessageStartingWith("OpenAI Responses API answered HTTP 400: "
        + "Unsupported parameter");
    assertThat(server.requestCount()).as("not retried").isEqualTo(4);
  }

  @Test
  void aStreamThatStallsEndsInAnIdleTimeoutWithThePartialText() {
    String body = Recordings.load("openai-responses/failed.sse");
    server.enqueue(body).stallAfter(body.indexOf("event: response.failed"));
    RecordingListener l = new RecordingListener();
    OpenAiResponsesClient.builder().baseUrl(server.v1())
        .idleTimeout(java.time.Duration.ofMillis(300)).build().stream(HI, l);
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.TIMEOUT);
    assertThat(o.partial().text()).isEqualTo("Partial");
  }

  @Test
  void reasoningModelsAreKnownByName() {
    for (String m : List.of("o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-mini",
        "gpt-5.1-codex", "openai/gpt-5-nano", "codex-mini-latest", "gpt-oss-120b")) {
      assertThat(OpenAiResponsesClient.isReasoningModel(m)).as(m).isTrue();
    }
    for (String m : List.of("gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "omni-moderation",
        "llama3.1:8b")) {
      assertThat(OpenAiResponsesClient.isReasoningModel(m)).as(m).isFalse();
    }
  }
}
