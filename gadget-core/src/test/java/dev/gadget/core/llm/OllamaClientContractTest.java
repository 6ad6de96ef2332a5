package dev.gadget.core.llm;

import dev.gadget.core.llm.LlmTestServer.Delivery;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** {@link OllamaClient} passes the {@link LlmClientContract} against a local server. */
class OllamaClientContractTest extends LlmClientContract {
  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  @Override
  protected LlmClient clientAnswering(Script script, int times) {
    for (int i = 0; i < times; i++) {
      server.enqueue(ContractBodies.ollamaBody(script)).delivery(Delivery.RANDOM_SPLITS).seed(i);
    }
    return OllamaClient.builder().baseUrl(server.url()).build();
  }

  @Override
  protected LlmClient clientThatNeverFinishes() {
    server.enqueue("{\"message\":{\"content\":\"first\"},\"done\":false}\n")
        .thenEndlessly(List.of("{\"message\":{\"content\":\" more\"},\"done\":false}\n"));
    return OllamaClient.builder().baseUrl(server.url()).build();
  }
}
