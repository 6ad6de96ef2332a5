package dev.gadget.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gadget.core.GadgetJson;
import org.junit.jupiter.api.Test;

/** {@link ModelParams}' output limit travels in a work order's provider, and is optional. */
class ModelParamsJsonTest {
  private static final ObjectMapper JSON = GadgetJson.mapper();

  @Test
  void maxTokensRoundTripsAndIsLeftOutWhenUnset() throws Exception {
    ProviderConfig p = new ProviderConfig("anthropic", "https://api.anthropic.com", null,
        "claude-sonnet-4-5", new ModelParams(0.2, null, null, 4096));
    JsonNode json = JSON.valueToTree(p);
    assertThat(json.at("/params/maxTokens").asInt()).isEqualTo(4096);
    assertThat(JSON.treeToValue(json, ProviderConfig.class)).isEqualTo(p);

    JsonNode older = JSON.readTree("{\"temperature\":0.2,\"topP\":0.9,\"topK\":40}");
    assertThat(JSON.treeToValue(older, ModelParams.class))
        .isEqualTo(new ModelParams(0.2, 0.9, 40)).extracting(ModelParams::maxTokens).isNull();
    assertThat(JSON.valueToTree(new ModelParams(0.2, 0.9, 40)).has("maxTokens")).isFalse();
  }
}
