package dev.gadget.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.GadgetJson;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A sampling's ranges, its merge value by value, and its JSON (only the values set). */
class SamplingTest {
  @Test
  void takesTheEdgesOfEachRangeAndRefusesWhatLiesOutsideInWords() {
    new Sampling(0.0, 1.0, 1);
    new Sampling(2.0, 0.01, Integer.MAX_VALUE);
    assertThatThrownBy(() -> new Sampling(2.01, null, null))
        .hasMessage("temperature must be a number from 0 to 2; got 2.01");
    assertThatThrownBy(() -> new Sampling(Double.NaN, null, null))
        .hasMessage("temperature must be a number from 0 to 2; got NaN");
    assertThatThrownBy(() -> new Sampling(null, 0.0, null))
        .hasMessage("topP must be a number above 0 and at most 1; got 0.0");
    assertThatThrownBy(() -> new Sampling(null, null, 0))
        .hasMessage("topK must be a whole number, 1 or more; got 0");
  }

  @Test
  void eachValueIsTheFirstOneSetAndApplyingKeepsTheOutputLimitAndContextWindow() {
    Sampling chat = new Sampling(null, null, 3);
    Sampling provider = new Sampling(0.3, null, 40);
    Sampling operator = new Sampling(0.9, 0.5, 11);
    assertThat(chat.or(provider).or(operator)).isEqualTo(new Sampling(0.3, 0.5, 3));
    assertThat(Sampling.NONE.or(null)).isEqualTo(Sampling.NONE);
    assertThat(chat.applyTo(new ModelParams(0.7, null, 9, 100, 8192)))
        .isEqualTo(new ModelParams(0.7, null, 3, 100, 8192));
    assertThat(Sampling.NONE.applyTo(null)).isEqualTo(ModelParams.DEFAULTS);
    assertThat(Sampling.of(new ModelParams(0.2, 0.9, 40, 64))).isEqualTo(
        new Sampling(0.2, 0.9, 40));
    assertThat(Sampling.orNull(Sampling.NONE)).isNull();
  }

  @Test
  void aSessionOrProviderKeepsNoneAsNullAndWritesOnlyTheValuesSet() throws Exception {
    Instant t0 = Instant.parse("2026-04-29T19:30:00Z");
    ChatSession s = new ChatSession("s1", "u1", "p1", "chat", null, t0, null, null,
        Sampling.NONE);
    assertThat(s.sampling()).isNull();
    assertThat(GadgetJson.mapper().writeValueAsString(s)).doesNotContain("sampling");
    ChatSession tuned = s.withSampling(new Sampling(null, 0.9, null));
    String json = GadgetJson.mapper().writeValueAsString(tuned);
    assertThat(json).contains("\"sampling\":{\"topP\":0.9}").doesNotContain("empty");
    assertThat(GadgetJson.mapper().readValue(json, ChatSession.class)).isEqualTo(tuned);
    ModelProvider p = new ModelProvider("x", "u1", "n", "ollama", "http://h", null, t0);
    assertThat(p.sampling()).isNull();
    assertThat(p.toString()).contains("sampling=null");
  }
}
