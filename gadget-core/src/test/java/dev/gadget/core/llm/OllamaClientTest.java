package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.LlmTestServer.Delivery;
import dev.gadget.core.llm.LlmTestServer.Recorded;
import dev.gadget.core.llm.RecordingListener.Outcome;
import dev.gadget.core.model.ModelParams;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link OllamaClient} against a real local HTTP server replaying recorded streams. */
class OllamaClientTest {
  static final RetryPolicy FAST = new RetryPolicy(2, Duration.ofMillis(5), Duration.ofMillis(20),
      Duration.ofSeconds(5));
  static final LlmRequest HI = new LlmRequest("qwen3:8b", List.of(LlmMessage.user("hi")), null,
      null, null);

  private final LlmTestServer server = LlmTestServer.start();
  private final OllamaClient client = OllamaClient.builder().baseUrl(server.url())
      .retryPolicy(FAST).build();

  @AfterEach
  void stop() {
    server.close();
  }

  private Outcome play(String recording, Delivery delivery) {
    StreamReplay.Played p = StreamReplay.play(server, client, HI,
        Recordings.load("ollama/" + recording), "application/x-ndjson", delivery);
    lastListener = p.listener();
    return p.outcome();
  }

  private RecordingListener lastListener;

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void thinkingThenContent_utf8SplitAnywhere(Delivery delivery) {
    LlmCompletion c = play("thinking-then-content.ndjson", delivery).completed();
    assertThat(c.thinking()).isEqualTo("Let me think about ünïcödé 🤔.");
    assertThat(c.text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(c.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(c.usage()).isEqualTo(new LlmUsage(26, 42, 0, Duration.ofSeconds(5),
        Duration.ofMillis(1), Duration.ofMillis(200), Duration.ofSeconds(4)));
    assertThat(lastListener.events).containsExactly("thinking:Let me think",
        "thinking: about ünïcödé 🤔.", "text:Grüße, ", "text:世界 🌍!", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void toolCallInADoneFalseChunk_stopAfterToolCallsIsToolCalls(Delivery delivery) {
    LlmCompletion c = play("tool-call-in-stream.ndjson", delivery).completed();
    assertThat(c.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(c.toolCalls()).singleElement().satisfies(call -> {
      assertThat(call.name()).isEqualTo("get_weather");
      assertThat(call.id()).startsWith("call_");
      assertThat(call.arguments().get("city").asText()).isEqualTo("Paris");
    });
    assertThat(lastListener.events).containsExactly("thinking:Need the weather.",
        "tool:get_weather", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void toolCallInsideTheDoneChunk(Delivery delivery) {
    LlmCompletion c = play("tool-call-in-done-chunk.ndjson", delivery).completed();
    assertThat(c.toolCalls()).extracting(LlmToolCall::name).containsExactly("read_file");
    assertThat(c.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(c.usage().completionTokens()).isEqualTo(15);
    assertThat(c.usage().promptTokens()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void severalCallsInOneChunk_withUniqueIds(Delivery delivery) {
    LlmCompletion c = play("several-calls-in-one-chunk.ndjson", delivery).completed();
    assertThat(c.toolCalls()).extracting(t -> t.arguments().get("path").asText())
        .containsExactly("a.txt", "b.txt");
    assertThat(c.toolCalls()).extracting(LlmToolCall::id).doesNotHaveDuplicates();
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void callsSpreadOverChunks(Delivery delivery) {
    LlmCompletion c = play("calls-spread-over-chunks.ndjson", delivery).completed();
    assertThat(c.text()).isEqualTo("Reading both files.");
    assertThat(c.toolCalls()).extracting(LlmToolCall::id).containsExactly("call_a1", "call_b2");
    assertThat(c.usage().loadDuration()).isEqualTo(Duration.ofMillis(50));
    assertThat(lastListener.events).containsExactly("text:Reading both files.",
        "tool:read_file", "tool:list_dir", "complete");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void everyMetricMissing(Delivery delivery) {
    LlmCompletion c = play("metrics-missing.ndjson", delivery).completed();
    assertThat(c.text()).isEqualTo("ok");
    assertThat(c.usage()).isEqualTo(LlmUsage.NONE);
    assertThat(c.finishReason()).isEqualTo(FinishReason.STOP);
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anErrorLineInA200StreamEndsAsAnError(Delivery delivery) {
    Outcome o = play("error-mid-stream.ndjson", delivery);
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(o.failed().providerMessage()).contains("unexpected EOF");
    assertThat(o.partial().text()).isEqualTo("Partial answer");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aStreamCutBeforeDoneIsAnError(Delivery delivery) {
    Outcome o = play("truncated.ndjson", delivery);
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.PROTOCOL);
    assertThat(o.partial().text()).isEqualTo("Cut off");
  }

  @Test
  void sendsTheChatRequestOverHttp11() {
    OllamaClient keyed = OllamaClient.builder().baseUrl(server.url() + "/").apiKey("secret-key")
        .header("X-Trace", "t1").option("num_ctx", 8192).param("keep_alive", "5m").build();
    server.enqueue(Recordings.load("ollama/metrics-missing.ndjson"));
    RecordingListener l = new RecordingListener();
    keyed.stream(new LlmRequest("qwen3:8b", List.of(LlmMessage.user("hi")), List.of(),
        new ModelParams(0.5, null, 20), false), l);
    l.await().completed();
    Recorded r = server.takeRequest();
    assertThat(r.method()).isEqualTo("POST");
    assertThat(r.path()).isEqualTo("/api/chat");
    assertThat(r.protocol()).isEqualTo("HTTP/1.1");
    assertThat(r.header("Upgrade")).isNull();
    assertThat(r.header("Content-Type")).isEqualTo("application/json");
    assertThat(r.header("Authorization")).isEqualTo("Bearer secret-key");
    assertThat(r.header("X-Trace")).isEqualTo("t1");
    assertThat(r.json().get("stream").asBoolean()).isTrue();
    assertThat(r.json().get("think").asBoolean()).isFalse();
    assertThat(r.json().get("options").toString())
        .isEqualTo("{\"temperature\":0.5,\"top_k\":20,\"num_ctx\":8192}");
    assertThat(r.json().get("keep_alive").asText()).isEqualTo("5m");
    assertThat(keyed.toString()).doesNotContain("secret-key");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void anHttpErrorBeforeTheStreamCarriesOllamasMessage(Delivery delivery) {
    server.enqueue(404, "{\"error\":\"model \\\"llama9\\\" not found, try pulling it first\"}")
        .header("Content-Type", "application/json").delivery(delivery);
    RecordingListener l = new RecordingListener();
    LlmCall call = client.stream(HI, l);
    LlmException e = l.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.HTTP);
    assertThat(e.statusCode()).isEqualTo(404);
    assertThat(e.providerMessage()).isEqualTo("model \"llama9\" not found, try pulling it first");
    assertThat(e.isRetryable()).isFalse();
    assertThat(e).hasMessageContaining("404").hasMessageContaining("not found");
    assertThat(call.result()).failsWithin(1, TimeUnit.SECONDS);
    assertThat(server.requestCount()).isEqualTo(1);
  }
}
