package dev.gadget.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.AnthropicClient;
import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.llm.Recordings;
import dev.gadget.core.llm.ThinkingBlock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link MeteredLlmClient} hands every callback on, the signed reasoning included, and says what
 * the client it wraps says of its models.
 */
class MeteredLlmClientTest {
  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void signedThinkingReachesTheListenerAsItEnds() throws Exception {
    server.enqueue(Recordings.load("anthropic/tool-use.sse"))
        .header("Content-Type", "text/event-stream");
    var metered = GadgetMetrics.of(new SimpleMeterRegistry()).llmClient(AnthropicClient.builder()
        .baseUrl(server.url()).apiKey("sk-ant-test").thinkingBudget(2048).build(), "anthropic");
    List<ThinkingBlock> signed = new CopyOnWriteArrayList<>();
    CompletableFuture<LlmCompletion> done = new CompletableFuture<>();
    metered.stream(new LlmRequest("claude-sonnet-4-5", List.of(LlmMessage.user("hi")), null,
        null, null), new LlmListener() {
          @Override
          public void onSignedThinking(ThinkingBlock block) {
            signed.add(block);
          }

          @Override
          public void onComplete(LlmCompletion completion) {
            done.complete(completion);
          }
        });
    LlmCompletion reply = done.get(10, TimeUnit.SECONDS);
    assertThat(signed).hasSize(1).isEqualTo(reply.thinkingBlocks());
    assertThat(signed.get(0).signature()).isEqualTo("ErUBCkYIBBgCIkD0c0ll1sNPmAHFxIVz/TdQ1g==");
  }

  @Test
  void itSaysWhatTheWrappedClientSaysOfItsModels() {
    GadgetMetrics metrics = GadgetMetrics.of(new SimpleMeterRegistry());
    var openAi = metrics.llmClient(OpenAiClient.builder().baseUrl(server.url()).build(), "openai");
    assertThat(openAi.maxTools()).isEqualTo(OpenAiClient.MAX_TOOLS);
    LlmClient known = new LlmClient() {
      @Override
      public LlmCall stream(LlmRequest request, LlmListener listener) {
        throw new AssertionError("not called");
      }

      @Override
      public OptionalInt contextWindow(String model) {
        return "small".equals(model) ? OptionalInt.of(8192) : OptionalInt.empty();
      }

      @Override
      public int maxTools() {
        return 7;
      }
    };
    var metered = metrics.llmClient(known, "local");
    assertThat(metered.maxTools()).isEqualTo(7);
    assertThat(metered.contextWindow("small")).hasValue(8192);
    assertThat(metered.contextWindow("other")).isEmpty();
  }
}
