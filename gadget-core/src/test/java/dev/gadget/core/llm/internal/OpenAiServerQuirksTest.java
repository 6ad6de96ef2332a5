package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmUsage;
import org.junit.jupiter.api.Test;

/**
 * What OpenAI-compatible servers people run send besides the documented shapes: errors in the
 * middle of a stream in their own shapes, prompt-cache counts, and usage that is there but zero.
 * Each recording is replayed whole, byte by byte, cut everywhere and in random splits.
 */
class OpenAiServerQuirksTest {
  private static ParseRun replay(String name) {
    return Replays.identicalForEverySplit("openai/" + name, ParseRun::openAi);
  }

  @Test
  void aFlatErrorObjectFollowedByDoneIsAnErrorNotATruncatedSuccess() {
    // SGLang and some vLLM versions: data: {"object":"error",...}, then data: [DONE]
    ParseRun run = replay("flat-error-then-done.sse");
    assertThat(run.completion).isNull();
    assertThat(run.error.kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(run.error.providerMessage()).isEqualTo("CUDA out of memory while decoding");
    assertThat(run.error.providerType()).isEqualTo("InternalServerError");
    assertThat(run.error.providerCode()).isEqualTo("500");
    assertThat(run.error.isRetryable()).isTrue();
    assertThat(run.partial.text()).isEqualTo("The answer is");
  }

  @Test
  void llamaCppsLegacyErrorFieldIsAnError() {
    // older llama.cpp servers: "error: {...}" instead of "data: ...", then the end of the body
    ParseRun run = replay("llamacpp-error-field.sse");
    assertThat(run.completion).isNull();
    assertThat(run.error.kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(run.error.providerMessage())
        .isEqualTo("the context size was exceeded while generating");
    assertThat(run.error.providerType()).isEqualTo("server_error");
    assertThat(run.error.getMessage()).contains("mid-stream", "context size was exceeded");
    assertThat(run.partial.text()).isEqualTo("Hello");
  }

  @Test
  void cachedPromptTokensAreKept() {
    ParseRun run = replay("cached-tokens.sse");
    assertThat(run.completion.usage())
        .isEqualTo(LlmUsage.ofTokens(2006, 300, 0, 1920, 0));
    assertThat(run.completion.usage().cacheReadTokens()).isEqualTo(1920);
  }

  @Test
  void noUsageSentIsToldApartFromZeroTokens() {
    ParseRun none = replay("eof-after-finish.sse");
    assertThat(none.completion.usage()).isEqualTo(LlmUsage.NONE);
    assertThat(none.completion.usage().reported()).isFalse();
    ParseRun zero = replay("zero-usage.sse");
    assertThat(zero.completion.usage().reported()).isTrue();
    assertThat(zero.completion.usage().promptTokens()).isZero();
    assertThat(zero.completion.usage()).isNotEqualTo(LlmUsage.NONE);
  }

  @Test
  void theServersOwnFinishReasonIsKept() {
    assertThat(replay("usage-with-null-choices.sse").completion)
        .satisfies(c -> {
          assertThat(c.finishReason()).isEqualTo(FinishReason.LENGTH);
          assertThat(c.providerFinishReason()).isEqualTo("length");
        });
    assertThat(replay("tool-indices-from-one-then-stop.sse").completion)
        .satisfies(c -> {
          assertThat(c.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
          assertThat(c.providerFinishReason()).isEqualTo("stop");
        });
  }

  @Test
  void theErrorTypeOfTheNestedShapeIsKeptToo() {
    ParseRun run = replay("error-mid-stream.sse");
    assertThat(run.error.providerType()).isEqualTo("server_error");
  }
}
