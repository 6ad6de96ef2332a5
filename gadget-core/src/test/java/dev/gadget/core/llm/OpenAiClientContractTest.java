package dev.gadget.core.llm;

import dev.gadget.core.llm.LlmTestServer.Delivery;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** {@link OpenAiClient} passes the {@link LlmClientContract} against a local server. */
class OpenAiClientContractTest extends LlmClientContract {
  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  @Override
  protected LlmClient clientAnswering(Script script, int times) {
    for (int i = 0; i < times; i++) {
      server.enqueue(ContractBodies.openAiBody(script)).delivery(Delivery.RANDOM_SPLITS).seed(i);
    }
    return OpenAiClient.builder().baseUrl(server.v1()).build();
  }

  @Override
  protected LlmClient clientThatNeverFinishes() {
    server.enqueue("data: {\"choices\":[{\"delta\":{\"content\":\"first\"}}]}\n\n")
        .thenEndlessly(List.of(": keep-alive\n\n"));
    return OpenAiClient.builder().baseUrl(server.v1()).build();
  }
}
