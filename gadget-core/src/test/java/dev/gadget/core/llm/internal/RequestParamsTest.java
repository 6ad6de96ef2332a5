package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.model.ModelParams;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The output limit and reasoning levels per request, as Ollama and OpenAI-compatible servers take them. */
class RequestParamsTest {
  private static final List<LlmMessage> HI = List.of(LlmMessage.user("hi"));

  @Test
  void maxTokensPerRequest() {
    LlmRequest r = LlmRequest.builder("m", HI).params(ModelParams.DEFAULTS.withMaxTokens(256))
        .build();
    assertThat(RequestBodies.ollama(r, Map.of(), Map.of()).at("/options/num_predict").asInt())
        .isEqualTo(256);
    assertThat(RequestBodies.openAi(r, true, Map.of()).get("max_tokens").asInt()).isEqualTo(256);
    ObjectNode o1 = RequestBodies.openAi(r, true, "max_completion_tokens", Map.of());
    assertThat(o1.get("max_completion_tokens").asInt()).isEqualTo(256);
    assertThat(o1.has("max_tokens")).isFalse();
    assertThat(RequestBodies.openAi(new LlmRequest("m", HI, null, null, null), true, Map.of())
        .has("max_tokens")).as("unset: not sent").isFalse();
  }

  @Test
  void thinkingLevelsPerRequest() {
    LlmRequest high = LlmRequest.builder("gpt-oss:20b", HI).thinkLevel("high").build();
    assertThat(RequestBodies.ollama(high, Map.of(), Map.of()).get("think").asText())
        .isEqualTo("high");
    assertThat(RequestBodies.openAi(high, true, Map.of()).get("reasoning_effort").asText())
        .isEqualTo("high");
    LlmRequest off = new LlmRequest("qwen3", HI, null, null, false);
    assertThat(RequestBodies.ollama(off, Map.of(), Map.of()).get("think").isBoolean()).isTrue();
    assertThat(RequestBodies.ollama(off, Map.of(), Map.of()).get("think").asBoolean()).isFalse();
    assertThat(RequestBodies.openAi(off, true, Map.of()).has("reasoning_effort")).isFalse();
    LlmRequest budgetOnly = LlmRequest.builder("qwen3", HI).thinkingBudget(2048).build();
    assertThat(RequestBodies.ollama(budgetOnly, Map.of(), Map.of()).get("think").asBoolean())
        .as("a budget asks for reasoning").isTrue();
    assertThatThrownBy(() -> LlmRequest.builder("m", HI).thinkLevel(" ").build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LlmRequest.builder("m", HI).thinkingBudget(0).build())
        .isInstanceOf(IllegalArgumentException.class);
  }
}
