package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every client says a model's context window: from the server's model list (vLLM's
 * {@code max_model_len}, OpenRouter's {@code context_length}) asked of a real local server, else
 * from the built-in table of published windows.
 */
class ContextWindowTest {
  private final LlmTestServer server = LlmTestServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void vllmsModelListGivesMaxModelLenAskedOnceWithTheKey() {
    server.enqueueModelList("{\"object\":\"list\",\"data\":[{\"id\":\"Qwen/Qwen3-8B\","
        + "\"object\":\"model\",\"owned_by\":\"vllm\",\"root\":\"Qwen/Qwen3-8B\","
        + "\"max_model_len\":32768},{\"id\":\"other\",\"max_model_len\":4096}]}");
    OpenAiClient client = OpenAiClient.builder().baseUrl(server.v1()).apiKey("sk-vllm").build();
    assertThat(client.contextWindow("Qwen/Qwen3-8B")).hasValue(32768);
    LlmTestServer.Recorded r = server.takeRequest();
    assertThat(r.method() + " " + r.path()).isEqualTo("GET /v1/models");
    assertThat(r.header("Authorization")).isEqualTo("Bearer sk-vllm");
    assertThat(client.contextWindow("Qwen/Qwen3-8B")).as("remembered").hasValue(32768);
    assertThat(server.requestCount()).isEqualTo(1);
  }

  @Test
  void openRoutersModelListGivesContextLengthForTheResponsesClientToo() {
    String list = "{\"data\":[{\"id\":\"openai/gpt-5-mini\",\"name\":\"OpenAI: GPT-5 Mini\","
        + "\"context_length\":400000,\"top_provider\":{\"context_length\":400000,"
        + "\"max_completion_tokens\":128000}},{\"id\":\"meta-llama/llama-3.3-70b-instruct\","
        + "\"top_provider\":{\"context_length\":131072}}]}";
    server.enqueueModelList(list);
    server.enqueueModelList(list);
    OpenAiClient chat = OpenAiClient.builder().baseUrl(server.url() + "/api/v1").build();
    assertThat(chat.contextWindow("meta-llama/llama-3.3-70b-instruct")).hasValue(131072);
    assertThat(server.takeRequest().path()).isEqualTo("/api/v1/models");
    OpenAiResponsesClient responses = OpenAiResponsesClient.builder()
        .baseUrl(server.url() + "/api/v1").build();
    assertThat(responses.contextWindow("openai/gpt-5-mini")).hasValue(400000);
  }

  @Test
  void aServerWithoutAModelListOrWithoutTheModelFallsBackToThePublishedWindow() {
    OpenAiClient client = OpenAiClient.builder().baseUrl(server.v1()).build();
    assertThat(client.contextWindow("gpt-4o-mini")).as("404: the table").hasValue(128_000);
    assertThat(client.contextWindow("my-own-model")).isEmpty();
    server.enqueueModelList("{\"object\":\"list\",\"data\":[{\"id\":\"gpt-5\"}]}");
    assertThat(client.contextWindow("gpt-5")).as("listed without a window").hasValue(400_000);
    assertThat(AnthropicClient.builder().baseUrl(server.url()).build()
        .contextWindow("claude-sonnet-4-5-20250929")).hasValue(200_000);
  }

  @Test
  void thePublishedTableMatchesFamiliesNotLookalikes() {
    String[][] cases = {
        {"claude-opus-4-1", "200000"}, {"gpt-5.1-codex", "400000"},
        {"gpt-5-chat-latest", "128000"}, {"gpt-4o-2024-08-06", "128000"},
        {"gpt-4.1-nano", "1047576"}, {"gpt-4", "8192"}, {"gpt-4-turbo", "128000"},
        {"o3-mini", "200000"}, {"o1-mini", "128000"}, {"openai/o4-mini", "200000"},
        {"deepseek-reasoner", "128000"}, {"gemini-2.5-pro", "1048576"},
        {"gpt-oss-20b", "131072"}};
    for (String[] c : cases) {
      assertThat(ContextWindows.known(c[0])).as(c[0]).hasValue(Integer.parseInt(c[1]));
    }
    for (String m : new String[] {"o30-custom", "gpt-4x", "llama3.1:8b", "qwen3"}) {
      assertThat(ContextWindows.known(m)).as(m).isEqualTo(OptionalInt.empty());
    }
  }
}
