package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.LlmTestServer.Delivery;
import dev.gadget.core.llm.LlmTestServer.Recorded;
import dev.gadget.core.llm.LlmTestServer.Reply;
import dev.gadget.core.llm.RecordingListener.Outcome;
import dev.gadget.core.model.ModelParams;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link AnthropicClient} against a real local HTTP server replaying recorded Messages API
 * streams whole, one byte per write and in random splits; with the retries, timeouts and cancel
 * of the other HTTP clients.
 */
class AnthropicClientTest {
  static final LlmRequest HI = new LlmRequest("claude-sonnet-4-5",
      List.of(LlmMessage.user("hi")), null, null, null);

  private final LlmTestServer server = LlmTestServer.start();
  private final AnthropicClient client = AnthropicClient.builder().baseUrl(server.url())
      .apiKey("sk-ant-test-123").retryPolicy(OllamaClientTest.FAST).build();
  private RecordingListener lastListener;

  @AfterEach
  void stop() {
    server.close();
  }

  private Outcome play(String recording, Delivery delivery) {
    StreamReplay.Played p = StreamReplay.play(server, client, HI,
        Recordings.load("anthropic/" + recording), "text/event-stream; charset=utf-8", delivery);
    lastListener = p.listener();
    return p.outcome();
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void text(Delivery delivery) {
    LlmCompletion c = play("text.sse", delivery).completed();
    assertThat(c.text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(c.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(lastListener.events).containsExactly("text:Grüße, ", "text:世界 🌍!", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void thinkingWithSignature(Delivery delivery) {
    LlmCompletion c = play("thinking-signature.sse", delivery).completed();
    assertThat(c.thinkingBlocks()).singleElement().satisfies(b -> {
      assertThat(b.text()).isEqualTo(c.thinking());
      assertThat(b.signature())
          .isEqualTo("EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+Lo0GCQk1WkbmIsZvH3/w==");
    });
    assertThat(lastListener.events).containsExactly("thinking:The user asks for 27 * 453.",
        "thinking: 27 * 453 = 12231.", "text:27 * 453 = 12,231", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void oneToolUse(Delivery delivery) {
    LlmCompletion c = play("tool-use.sse", delivery).completed();
    assertThat(c.toolCalls()).singleElement().satisfies(call -> {
      assertThat(call.id()).isEqualTo("toolu_01T1x1fJ34qAmk2tNTrN7Up6");
      assertThat(call.arguments().get("path").asText()).isEqualTo("src/Greeting.java");
    });
    assertThat(c.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(lastListener.events).containsExactly("thinking:I should read the file first.",
        "text:Let me read it.", "tool:read_file", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void twoToolUses(Delivery delivery) {
    LlmCompletion c = play("two-tool-uses.sse", delivery).completed();
    assertThat(c.toolCalls()).extracting(LlmToolCall::name).containsExactly("write_file",
        "list_dir");
    assertThat(c.toolCalls().get(0).arguments().get("content").asText())
        .isEqualTo("say \"hi\"\nécrit");
    assertThat(c.toolCalls().get(1).arguments().get("depth").asInt()).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aMidStreamOverloadedErrorEndsAsARetryableErrorAndIsNotRetriedAfterAChunk(
      Delivery delivery) {
    Outcome o = play("overloaded-error.sse", delivery);
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(o.failed().providerType()).isEqualTo("overloaded_error");
    assertThat(o.failed().isRetryable()).isTrue();
    assertThat(o.partial().text()).isEqualTo("Partial");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void maxTokens(Delivery delivery) {
    LlmCompletion c = play("max-tokens.sse", delivery).completed();
    assertThat(c.finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(c.providerFinishReason()).isEqualTo("max_tokens");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void usageWithCacheTokens(Delivery delivery) {
    LlmUsage u = play("cache-usage.sse", delivery).completed().usage();
    assertThat(u).isEqualTo(LlmUsage.ofTokens(21 + 188086 + 1024, 393, 0, 1024, 188086));
  }

  @Test
  void sendsTheMessagesRequest() {
    server.enqueue(Recordings.load("anthropic/text.sse"));
    RecordingListener l = new RecordingListener();
    AnthropicClient c = AnthropicClient.builder().baseUrl(server.url()).apiKey("sk-ant-test-123")
        .header("anthropic-beta", "interleaved-thinking-2025-05-14").maxTokens(512).build();
    c.stream(new LlmRequest("claude-sonnet-4-5", List.of(LlmMessage.system("Be brief."),
        LlmMessage.user("hi")), null, new ModelParams(0.3, null, null), null), l);
    l.await().completed();
    Recorded r = server.takeRequest();
    assertThat(r.method()).isEqualTo("POST");
    assertThat(r.path()).isEqualTo("/v1/messages");
    assertThat(r.header("x-api-key")).isEqualTo("sk-ant-test-123");
    assertThat(r.header("Authorization")).isNull();
    assertThat(r.header("anthropic-version")).isEqualTo("2023-06-01");
    assertThat(r.header("anthropic-beta")).isEqualTo("interleaved-thinking-2025-05-14");
    assertThat(r.header("Accept")).isEqualTo("text/event-stream");
    assertThat(r.json().get("system").get(0).get("text").asText()).isEqualTo("Be brief.");
    assertThat(r.json().get("system").get(0).get("cache_control").get("type").asText())
        .isEqualTo("ephemeral");
    assertThat(r.json().get("max_tokens").asInt()).isEqualTo(512);
    assertThat(r.json().get("stream").asBoolean()).isTrue();
    assertThat(r.json().get("temperature").asDouble()).isEqualTo(0.3);
    assertThat(r.json().has("thinking")).isFalse();
    assertThat(r.json().get("messages")).hasSize(1);
    assertThat(c.toString()).doesNotContain("sk-ant-test-123");
  }

  @Test
  void anErrorBodyCarriesAnthropicsErrorTypeAndIsNotRetriedWhenItIsTheCallersFault() {
    server.enqueue(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
        + "\"message\":\"max_tokens: Field required\"},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}")
        .header("Content-Type", "application/json");
    RecordingListener l = new RecordingListener();
    client.stream(HI, l);
    LlmException e = l.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.HTTP);
    assertThat(e.statusCode()).isEqualTo(400);
    assertThat(e.providerType()).isEqualTo("invalid_request_error");
    assertThat(e.providerMessage()).isEqualTo("max_tokens: Field required");
    assertThat(e).hasMessage("Anthropic answered HTTP 400: max_tokens: Field required "
        + "(type invalid_request_error)");
    assertThat(server.requestCount()).isEqualTo(1);
  }

  @Test
  void http529OverloadedIsRetriedThenSucceeds() {
    server.enqueue(529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
        + "\"message\":\"Overloaded\"}}");
    server.enqueue(Recordings.load("anthropic/text.sse")).delivery(Delivery.RANDOM_SPLITS);
    RecordingListener l = new RecordingListener();
    client.stream(HI, l);
    assertThat(l.assertContract().completed().text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(server.requestCount()).isEqualTo(2);
  }

  @Test
  void aBodyCutInsideAnEventEndsEarlyWithThePartialTextNotAsAMalformedEvent() {
    String body = Recordings.load("anthropic/text.sse");
    // cut inside the JSON of the second delta: the connection dropped there
    int second = body.indexOf("content_block_delta", body.indexOf("content_block_delta") + 40);
    server.enqueue(body.substring(0, body.indexOf("\"text\"", second) + 9))
        .header("Content-Type", "text/event-stream");
    RecordingListener l = new RecordingListener();
    client.stream(HI, l);
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.PROTOCOL);
    assertThat(o.failed()).hasMessageContaining("Anthropic stream ended before message_stop")
        .hasMessageNotContaining("malformed");
    assertThat(o.partial().text()).isNotEmpty();
    assertThat(server.requestCount()).isEqualTo(1);
  }

  @Test
  void anUnfinishedLastEventIsNeverApplied() {
    String body = Recordings.load("anthropic/text.sse");
    // the message_delta with its stop reason arrives whole but without its blank line
    int delta = body.indexOf("event: message_delta");
    String cut = body.substring(0, body.indexOf('\n', body.indexOf("data:", delta)) + 1);
    server.enqueue(cut).header("Content-Type", "text/event-stream");
    RecordingListener l = new RecordingListener();
    client.stream(HI, l);
    Outcome o = l.assertContract();
    assertThat(o.failed()).hasMessageContaining("Anthropic stream ended before message_stop");
    assertThat(o.partial().text()).isEqualTo("Grüße, 世界 🌍!");
  }

  @Test
  void aConflictIsRetriedAndTheServersShouldRetryHeaderDecides() {
    server.enqueue(409, "{\"type\":\"error\",\"error\":{\"type\":\"api_error\","
        + "\"message\":\"conflict\"}}");
    server.enqueue(400, "{\"type\":\"error\",\"error\":{\"type\":\"api_error\","
        + "\"message\":\"try again\"}}").header("x-should-retry", "true");
    server.enqueue(Recordings.load("anthropic/text.sse")).delivery(Delivery.RANDOM_SPLITS);
    RecordingListener ok = new RecordingListener();
    client.stream(HI, ok);
    assertThat(ok.assertContract().completed().text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(server.requestCount()).isEqualTo(3);

    server.enqueue(500, "{\"type\":\"error\",\"error\":{\"type\":\"api_error\","
        + "\"message\":\"do not\"}}").header("x-should-retry", "false");
    RecordingListener refused = new RecordingListener();
    client.stream(HI, refused);
    assertThat(refused.assertContract().failed().statusCode()).isEqualTo(500);
    assertThat(server.requestCount()).as("not retried").isEqualTo(4);
  }

  @Test
  void aStreamThatStallsEndsInAnIdleTimeoutWithThePartialText() {
    String body = Recordings.load("anthropic/overloaded-error.sse");
    int cut = body.indexOf("event: error");
    server.enqueue(body).stallAfter(cut);
    RecordingListener l = new RecordingListener();
    AnthropicClient.builder().baseUrl(server.url()).idleTimeout(Duration.ofMillis(300))
        .build().stream(HI, l);
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.TIMEOUT);
    assertThat(o.partial().text()).isEqualTo("Partial");
  }

  @Test
  void cancelClosesTheConnection() throws Exception {
    String body = Recordings.load("anthropic/text.sse");
    Reply reply = server.enqueue(body.substring(0, body.indexOf("event: content_block_stop")))
        .thenEndlessly(List.of("event: ping\ndata: {\"type\": \"ping\"}\n\n"));
    RecordingListener l = new RecordingListener();
    LlmCall call = client.stream(HI, l);
    l.awaitFirstEvent();
    call.cancel();
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.CANCELLED);
    assertThat(reply.writeFailed).succeedsWithin(10, TimeUnit.SECONDS)
        .isInstanceOf(IOException.class);
  }
}
