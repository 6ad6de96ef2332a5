package dev.gadget.core.llm;

import dev.gadget.core.llm.LlmTestServer.Delivery;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** {@link AnthropicClient} passes the {@link LlmClientContract} against a local server. */
class AnthropicClientContractTest extends LlmClientContract {
  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  @Override
  protected LlmClient clientAnswering(Script script, int times) {
    for (int i = 0; i < times; i++) {
      server.enqueue(ContractBodies.anthropicBody(script)).delivery(Delivery.RANDOM_SPLITS)
          .seed(i);
    }
    return AnthropicClient.builder().baseUrl(server.url()).apiKey("sk-ant-test").build();
  }

  @Override
  protected LlmClient clientThatNeverFinishes() {
    server.enqueue("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
        + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
        + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        + "\"delta\":{\"type\":\"text_delta\",\"text\":\"first\"}}\n\n")
        .thenEndlessly(List.of("event: ping\ndata: {\"type\": \"ping\"}\n\n"));
    return AnthropicClient.builder().baseUrl(server.url()).apiKey("sk-ant-test").build();
  }
}
