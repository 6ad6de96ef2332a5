package dev.gadget.core.llm;

import dev.gadget.core.llm.LlmTestServer.Delivery;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** {@link OpenAiResponsesClient} passes the {@link LlmClientContract} against a local server. */
class OpenAiResponsesClientContractTest extends LlmClientContract {
  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  @Override
  protected LlmClient clientAnswering(Script script, int times) {
    for (int i = 0; i < times; i++) {
      server.enqueue(ContractBodies.responsesBody(script)).delivery(Delivery.RANDOM_SPLITS)
          .seed(i);
    }
    return OpenAiResponsesClient.builder().baseUrl(server.v1()).build();
  }

  @Override
  protected LlmClient clientThatNeverFinishes() {
    server.enqueue("event: response.output_text.delta\ndata: {\"type\":"
        + "\"response.output_text.delta\",\"item_id\":\"msg_1\",\"delta\":\"first\"}\n\n")
        .thenEndlessly(List.of(": keep-alive\n\n"));
    return OpenAiResponsesClient.builder().baseUrl(server.v1()).build();
  }
}
