package dev.gadget.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.AnthropicClient;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.LlmTestServer.Delivery;
import dev.gadget.core.llm.Recordings;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A two-round tool turn through {@link AnthropicClient} against a local HTTP server speaking the
 * Messages API: the model thinks (signed), calls {@code read_file}, and answers after the result.
 * The second request must carry the signed thinking block unchanged before the {@code tool_use},
 * and the tool's result as a {@code tool_result} block.
 */
class AgentAnthropicTest {
  private static final String GREETING = "class Greeting {\n  String text() {\n"
      + "    return \"Hello\";\n  }\n}\n";

  @TempDir Path tmp;
  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void theSecondRequestCarriesTheSignedThinkingAndTheToolResult() throws Exception {
    TestRepo repo = TestRepo.create(tmp, "src/Greeting.java", GREETING);
    server.enqueue(Recordings.load("anthropic/tool-use.sse")).delivery(Delivery.RANDOM_SPLITS);
    server.enqueue(Recordings.load("anthropic/text.sse")).delivery(Delivery.BYTE_BY_BYTE);
    AnthropicClient llm = AnthropicClient.builder().baseUrl(server.url()).apiKey("sk-ant-test")
        .thinkingBudget(2048).build();
    RecordingListener listener = new RecordingListener();

    AgentOutcome outcome = AgentLoop.builder().llmClient(llm).build()
        .start(AgentRequest.builder(repo.dir(), "claude-sonnet-4-5", "What does Greeting say?")
            .build(), listener)
        .outcome().get(30, TimeUnit.SECONDS);

    assertThat(outcome.status()).as(String.valueOf(outcome.message()))
        .isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(outcome.stats().llmCalls()).isEqualTo(2);
    assertThat(outcome.stats().promptTokens()).isEqualTo(472 + 25);

    JsonNode first = server.takeRequest().json();
    JsonNode second = server.takeRequest().json();
    assertThat(first.get("system").get(0).get("text").asText()).isNotBlank();
    assertThat(first.findValues("cache_control")).as("tools, system, the prompt").hasSize(3);
    assertThat(second.findValues("cache_control"))
        .as("tools, system, the prompt (the previous round's newest), the tool result")
        .hasSize(4);
    assertThat(second.get("system")).isEqualTo(first.get("system"));
    assertThat(second.get("tools")).isEqualTo(first.get("tools"));
    assertThat(first.at("/thinking/budget_tokens").asInt()).isEqualTo(2048);
    assertThat(first.get("tools").findValuesAsText("name")).contains("read_file");

    JsonNode messages = second.get("messages");
    assertThat(messages).hasSize(3); // the prompt, the assistant's tool turn, the tool result
    assertThat(messages.get(0).get("role").asText()).isEqualTo("user");
    JsonNode assistant = messages.get(1);
    assertThat(assistant.get("role").asText()).isEqualTo("assistant");
    JsonNode thinking = assistant.get("content").get(0);
    assertThat(thinking.get("type").asText()).isEqualTo("thinking");
    assertThat(thinking.get("thinking").asText()).isEqualTo("I should read the file first.");
    assertThat(thinking.get("signature").asText())
        .isEqualTo("ErUBCkYIBBgCIkD0c0ll1sNPmAHFxIVz/TdQ1g==");
    assertThat(assistant.get("content").get(1).get("text").asText()).isEqualTo("Let me read it.");
    JsonNode use = assistant.get("content").get(2);
    assertThat(use.get("type").asText()).isEqualTo("tool_use");
    assertThat(use.get("id").asText()).isEqualTo("toolu_01T1x1fJ34qAmk2tNTrN7Up6");
    assertThat(use.get("input").get("path").asText()).isEqualTo("src/Greeting.java");
    JsonNode result = messages.get(2);
    assertThat(result.get("role").asText()).isEqualTo("user");
    assertThat(result.get("content")).hasSize(1);
    assertThat(result.get("content").get(0).get("type").asText()).isEqualTo("tool_result");
    assertThat(result.get("content").get(0).get("tool_use_id").asText())
        .isEqualTo("toolu_01T1x1fJ34qAmk2tNTrN7Up6");
    assertThat(result.get("content").get(0).get("content").asText()).isEqualTo(GREETING);
  }
}
