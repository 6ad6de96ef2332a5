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

/**
 * The Ollama and OpenAI-compatible clients against what servers people run send, on a real
 * local server, whole, byte by byte and in random splits; and the per-request output limit and
 * reasoning level on the wire.
 */
class ServerQuirksClientTest {
  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  private Outcome openAi(String recording, Delivery delivery) {
    server.enqueue(Recordings.load("openai/" + recording)).delivery(delivery)
        .header("Content-Type", "text/event-stream");
    RecordingListener l = new RecordingListener();
    OpenAiClient.builder().baseUrl(server.v1()).retryPolicy(OllamaClientTest.FAST).build()
        .stream(OpenAiClientTest.HI, l);
    Outcome o = l.assertContract();
    assertThat(server.requestCount()).as("never retried after a chunk").isEqualTo(1);
    return o;
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aFlatMidStreamErrorBeforeDoneFailsTheCall(Delivery delivery) {
    Outcome o = openAi("flat-error-then-done.sse", delivery);
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(o.failed().providerType()).isEqualTo("InternalServerError");
    assertThat(o.partial().text()).isEqualTo("The answer is");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void llamaCppsErrorLineFailsTheCallWithItsMessage(Delivery delivery) {
    Outcome o = openAi("llamacpp-error-field.sse", delivery);
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(o.failed().providerMessage())
        .isEqualTo("the context size was exceeded while generating");
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void cachedTokensAndTheRawFinishReason(Delivery delivery) {
    LlmCompletion c = openAi("cached-tokens.sse", delivery).completed();
    assertThat(c.usage().cacheReadTokens()).isEqualTo(1920);
    assertThat(c.usage().reported()).isTrue();
    assertThat(c.providerFinishReason()).isEqualTo("stop");
  }

  @Test
  void ollamaTakesTheOutputLimitAndAThinkingLevelPerRequest() {
    server.enqueue(Recordings.load("ollama/thinking-then-content.ndjson"));
    RecordingListener l = new RecordingListener();
    OllamaClient.builder().baseUrl(server.url()).build().stream(
        LlmRequest.builder("gpt-oss:20b", List.of(LlmMessage.user("hi")))
            .params(ModelParams.DEFAULTS.withMaxTokens(300)).thinkLevel("high").build(), l);
    LlmCompletion c = l.assertContract().completed();
    Recorded r = server.takeRequest();
    assertThat(r.json().get("think").asText()).isEqualTo("high");
    assertThat(r.json().at("/options/num_predict").asInt()).isEqualTo(300);
    assertThat(c.providerFinishReason()).isEqualTo("stop");
    assertThat(c.usage().reported()).isTrue();
  }

  @Test
  void openAiTakesTheOutputLimitAndAReasoningEffortPerRequest() {
    server.enqueue(Recordings.load("openai/eof-after-finish.sse"));
    RecordingListener l = new RecordingListener();
    OpenAiClient.builder().baseUrl(server.v1()).maxTokensField("max_completion_tokens").build()
        .stream(LlmRequest.builder("o4-mini", List.of(LlmMessage.user("hi")))
            .params(ModelParams.DEFAULTS.withMaxTokens(300)).thinkLevel("low").build(), l);
    assertThat(l.assertContract().completed().usage()).isEqualTo(LlmUsage.NONE);
    Recorded r = server.takeRequest();
    assertThat(r.json().get("max_completion_tokens").asInt()).isEqualTo(300);
    assertThat(r.json().get("reasoning_effort").asText()).isEqualTo("low");
  }
}
