package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.LlmTestServer.Delivery;
import dev.gadget.core.llm.LlmTestServer.Recorded;
import dev.gadget.core.llm.RecordingListener.Outcome;
import dev.gadget.core.model.ModelParams;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link OpenAiClient} against a real local HTTP server replaying recorded streams. */
class OpenAiClientTest {
  static final LlmRequest HI = new LlmRequest("gpt-4o-mini", List.of(LlmMessage.user("hi")),
      null, null, null);

  private final LlmTestServer server = LlmTestServer.start();
  private final OpenAiClient client = OpenAiClient.builder().baseUrl(server.v1())
      .apiKey("sk-test-123").retryPolicy(OllamaClientTest.FAST).build();
  private RecordingListener lastListener;

  @AfterEach
  void stop() {
    server.close();
  }

  private Outcome playBody(String body, String contentType, Delivery delivery) {
    StreamReplay.Played p = StreamReplay.play(server, client, HI, body, contentType, delivery);
    lastListener = p.listener();
    return p.outcome();
  }

  private Outcome play(String recording, Delivery delivery) {
    return playBody(Recordings.load("openai/" + recording), "text/event-stream; charset=utf-8",
        delivery);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void textWithUsageOnAnEmptyChoicesChunk_utf8SplitAnywhere(Delivery delivery) {
    LlmCompletion c = play("text-with-usage.sse", delivery).completed();
    assertThat(c.text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(c.usage()).isEqualTo(new LlmUsage(12, 5, 0, null, null, null, null));
    assertThat(lastListener.events).containsExactly("text:Grüße, ", "text:世界 🌍!", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void toolArgumentsSplitInsideAnEscape(Delivery delivery) {
    LlmCompletion c = play("tool-args-split-in-escape.sse", delivery).completed();
    assertThat(c.toolCalls()).singleElement().satisfies(call -> {
      assertThat(call.id()).isEqualTo("call_W1");
      assertThat(call.name()).isEqualTo("write_file");
      assertThat(call.arguments().get("content").asText()).isEqualTo("say \"hi\"\né");
    });
    assertThat(c.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void parallelCallsInterleaved(Delivery delivery) {
    LlmCompletion c = play("parallel-calls-interleaved.sse", delivery).completed();
    assertThat(c.toolCalls()).extracting(LlmToolCall::id).containsExactly("call_AAA", "call_BBB");
    assertThat(c.toolCalls()).extracting(t -> t.arguments().get("path").asText())
        .containsExactly("a.txt", "src");
    assertThat(lastListener.events).containsExactly("tool:read_file", "tool:list_dir", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void toolCallFragmentsWithoutIndex(Delivery delivery) {
    LlmCompletion c = play("tool-calls-index-missing.sse", delivery).completed();
    assertThat(c.toolCalls()).extracting(t -> t.id() + ":" + t.arguments().get("path").asText())
        .containsExactly("call_1:a.txt", "call_2:b.txt");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void indicesNotStartingAtZero(Delivery delivery) {
    LlmCompletion c = play("tool-indices-from-one-then-stop.sse", delivery).completed();
    assertThat(c.toolCalls()).extracting(LlmToolCall::name).containsExactly("grep", "read_file");
    assertThat(c.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void reasoningContent(Delivery delivery) {
    LlmCompletion c = play("reasoning-content.sse", delivery).completed();
    assertThat(c.thinking()).isEqualTo("The user greets me.");
    assertThat(c.text()).isEqualTo("Hello!");
    assertThat(c.usage().reasoningTokens()).isEqualTo(12);
    assertThat(lastListener.events).containsExactly("thinking:The user", "thinking: greets me.",
        "text:Hello", "text:!", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void openRouterReasoningAndReasoningDetailsCountOnce(Delivery delivery) {
    LlmCompletion c = play("openrouter-reasoning-details.sse", delivery).completed();
    assertThat(c.thinking()).isEqualTo("Thinking hard.");
    assertThat(c.text()).isEqualTo("Done.");
    assertThat(c.usage()).isEqualTo(new LlmUsage(20, 40, 30, null, null, null, null));
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void usageWithChoicesNull(Delivery delivery) {
    LlmCompletion c = play("usage-with-null-choices.sse", delivery).completed();
    assertThat(c.finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(c.usage().promptTokens()).isEqualTo(3);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void endOfStreamRightAfterTheFinishReason(Delivery delivery) {
    LlmCompletion c = play("eof-after-finish.sse", delivery).completed();
    assertThat(c.text()).isEqualTo("Bye");
    assertThat(c.finishReason()).isEqualTo(FinishReason.STOP);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void sseFramingCommentsFieldsCrlfBareCrMultiLineDataUnterminatedLastEvent(Delivery delivery) {
    LlmCompletion c = playBody(Recordings.SSE_FRAMING, "text/event-stream", delivery).completed();
    assertThat(c.text()).isEqualTo("abcd");
    assertThat(lastListener.events).containsExactly("text:a", "text:b", "text:c", "text:d",
        "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anErrorEventInA200StreamEndsAsAnError(Delivery delivery) {
    Outcome o = play("error-mid-stream.sse", delivery);
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(o.failed().providerMessage()).isEqualTo("Upstream provider overloaded");
    assertThat(o.partial().text()).isEqualTo("Partial");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aStreamCutBeforeItsFinishIsAnError(Delivery delivery) {
    Outcome o = play("truncated.sse", delivery);
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.PROTOCOL);
    assertThat(o.partial().text()).isEqualTo("Cut off");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aServerThatIgnoresStreamAndSendsOneJsonCompletion(Delivery delivery) {
    LlmCompletion c = playBody(Recordings.load("openai/non-streamed.json"), "application/json",
        delivery).completed();
    assertThat(c.text()).isEqualTo("Whole answer");
    assertThat(c.thinking()).isEqualTo("Brief thought");
    assertThat(c.toolCalls()).extracting(LlmToolCall::id).containsExactly("call_z");
  }

  @Test
  void sendsTheChatCompletionsRequest() {
    server.enqueue(Recordings.load("openai/eof-after-finish.sse"));
    RecordingListener l = new RecordingListener();
    client.stream(new LlmRequest("gpt-4o-mini", List.of(LlmMessage.user("hi")), null,
        new ModelParams(0.3, 0.8, 50), null), l);
    l.await().completed();
    Recorded r = server.takeRequest();
    assertThat(r.method()).isEqualTo("POST");
    assertThat(r.path()).isEqualTo("/v1/chat/completions");
    assertThat(r.protocol()).isEqualTo("HTTP/1.1");
    assertThat(r.header("Authorization")).isEqualTo("Bearer sk-test-123");
    assertThat(r.header("Accept")).isEqualTo("text/event-stream");
    assertThat(r.json().get("stream_options").get("include_usage").asBoolean()).isTrue();
    assertThat(r.json().get("temperature").asDouble()).isEqualTo(0.3);
    assertThat(r.json().get("top_p").asDouble()).isEqualTo(0.8);
    assertThat(r.json().has("top_k")).isFalse();
    assertThat(client.toString()).doesNotContain("sk-test-123");
  }

  private Delivery errorDelivery = Delivery.WHOLE;

  private LlmException failWith(int status, String body) {
    server.enqueue(status, body).header("Content-Type", "application/json")
        .delivery(errorDelivery);
    OpenAiClient noRetry = OpenAiClient.builder().baseUrl(server.v1())
        .retryPolicy(RetryPolicy.NONE).build();
    RecordingListener l = new RecordingListener();
    noRetry.stream(HI, l);
    LlmException e = l.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.HTTP);
    assertThat(e.statusCode()).isEqualTo(status);
    return e;
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void openAiErrorBodiesWithStringNumberAndNullCodes(Delivery delivery) {
    errorDelivery = delivery;
    LlmException stringCode = failWith(400, "{\"error\":{\"message\":\"maximum context length is "
        + "8192 tokens\",\"type\":\"invalid_request_error\",\"param\":\"messages\","
        + "\"code\":\"context_length_exceeded\"}}");
    assertThat(stringCode.providerMessage()).isEqualTo("maximum context length is 8192 tokens");
    assertThat(stringCode.providerCode()).isEqualTo("context_length_exceeded");
    assertThat(stringCode.isRetryable()).isFalse();

    LlmException numberCode = failWith(429, "{\"error\":{\"message\":\"Rate limit exceeded\","
        + "\"code\":429}}");
    assertThat(numberCode.providerCode()).isEqualTo("429");
    assertThat(numberCode.isRetryable()).isTrue();

    LlmException nullCode = failWith(403, "{\"error\":{\"message\":\"No access\","
        + "\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}}");
    assertThat(nullCode.providerMessage()).isEqualTo("No access");
    assertThat(nullCode.providerCode()).isNull();
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void flatAndTextErrorBodies(Delivery delivery) {
    errorDelivery = delivery;
    LlmException flat = failWith(404, "{\"object\":\"error\",\"message\":\"The model `gpt-9` "
        + "does not exist.\",\"type\":\"NotFoundError\",\"param\":null,\"code\":404}");
    assertThat(flat.providerMessage()).isEqualTo("The model `gpt-9` does not exist.");
    LlmException text = failWith(502, "<html><body>502 Bad Gateway</body></html>");
    assertThat(text.providerMessage()).isEqualTo("<html><body>502 Bad Gateway</body></html>");
    assertThat(text.isRetryable()).isTrue();
    assertThat(server.requestCount()).isEqualTo(2);
  }
}
