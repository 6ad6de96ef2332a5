package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.LlmUsage;
import dev.gadget.core.llm.ThinkingBlock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Anthropic Messages API parser on recorded streams (the documented event format), each
 * replayed whole, byte by byte, cut everywhere and in random splits with identical results.
 */
class AnthropicStreamAssemblerTest {
  private static ParseRun replay(String name) {
    return Replays.identicalForEverySplit("anthropic/" + name, ParseRun::anthropic);
  }

  private static LlmToolCall call(String id, String name, String json) {
    try {
      return new LlmToolCall(id, name, GadgetJson.mapper().readTree(json));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void text() {
    ParseRun run = replay("text.sse");
    assertThat(run.completion.text()).isEqualTo("Grüße, 世界 🌍!");
    assertThat(run.completion.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(run.completion.providerFinishReason()).isEqualTo("end_turn");
    assertThat(run.completion.usage()).isEqualTo(LlmUsage.ofTokens(25, 15, 0, 0, 0));
    assertThat(run.completion.thinkingBlocks()).isEmpty();
    assertThat(run.shape()).containsExactly("text");
  }

  @Test
  void thinkingWithItsSignature() {
    ParseRun run = replay("thinking-signature.sse");
    assertThat(run.completion.thinking()).isEqualTo("The user asks for 27 * 453. 27 * 453 = 12231.");
    assertThat(run.completion.text()).isEqualTo("27 * 453 = 12,231");
    assertThat(run.completion.thinkingBlocks()).containsExactly(ThinkingBlock.signed(
        "The user asks for 27 * 453. 27 * 453 = 12231.",
        "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+Lo0GCQk1WkbmIsZvH3/w=="));
    assertThat(run.shape()).containsExactly("thinking", "text");
  }

  @Test
  void oneToolUseWithSplitJsonInputAfterThinkingAndText() {
    ParseRun run = replay("tool-use.sse");
    assertThat(run.completion.toolCalls()).containsExactly(
        call("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "read_file", "{\"path\":\"src/Greeting.java\"}"));
    assertThat(run.completion.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(run.completion.providerFinishReason()).isEqualTo("tool_use");
    assertThat(run.completion.thinkingBlocks()).singleElement()
        .satisfies(b -> assertThat(b.signature()).startsWith("ErUBCkYIBBgC"));
    assertThat(run.shape()).containsExactly("thinking", "text", "tool:read_file");
    assertThat(run.completion.usage().promptTokens()).isEqualTo(472);
    assertThat(run.completion.usage().completionTokens()).isEqualTo(89);
  }

  @Test
  void twoToolUsesWithInputSplitInsideAnEscapeAndAKey() {
    ParseRun run = replay("two-tool-uses.sse");
    assertThat(run.completion.toolCalls()).containsExactly(
        call("toolu_01A09q90qw90lq917835lq9", "write_file",
            "{\"path\":\"a.txt\",\"content\":\"say \\\"hi\\\"\\nécrit\"}"),
        call("toolu_01B7x8u3AKvPHh4xqHJQrT2M", "list_dir", "{\"path\":\"src\",\"depth\":2}"));
    assertThat(run.completion.toolCalls().get(0).arguments().get("content").asText())
        .isEqualTo("say \"hi\"\nécrit");
    assertThat(run.shape()).containsExactly("text", "tool:write_file", "tool:list_dir");
  }

  @Test
  void aMidStreamOverloadedErrorEndsTheCallRetryably() {
    ParseRun run = replay("overloaded-error.sse");
    assertThat(run.completion).isNull();
    assertThat(run.error.kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(run.error.providerType()).isEqualTo("overloaded_error");
    assertThat(run.error.providerMessage()).isEqualTo("Overloaded");
    assertThat(run.error.isRetryable()).isTrue();
    assertThat(run.error.getMessage())
        .isEqualTo("Anthropic reported an error mid-stream: Overloaded (type overloaded_error)");
    assertThat(run.partial.text()).isEqualTo("Partial");
    assertThat(run.partial.finishReason()).isEqualTo(FinishReason.OTHER);
  }

  @Test
  void maxTokensStop() {
    ParseRun run = replay("max-tokens.sse");
    assertThat(run.completion.finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(run.completion.providerFinishReason()).isEqualTo("max_tokens");
    assertThat(run.completion.text()).isEqualTo("Once upon a time, in a land");
  }

  @Test
  void usageWithPromptCacheTokens_message_deltaCountsAreCumulative() {
    ParseRun run = replay("cache-usage.sse");
    LlmUsage u = run.completion.usage();
    assertThat(u.cacheWriteTokens()).isEqualTo(188086);
    assertThat(u.cacheReadTokens()).isEqualTo(1024);
    assertThat(u.promptTokens()).isEqualTo(21 + 188086 + 1024);
    assertThat(u.completionTokens()).isEqualTo(393);
    assertThat(u.reported()).isTrue();
  }

  private static ParseRun literal(String sse) {
    return ParseRun.anthropic(List.of(sse.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void redactedThinkingIsKeptForTheNextRequest() {
    ParseRun run = literal("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n"
        + "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        + "\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix\"}}\n\n"
        + "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
        + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
        + "\"end_turn\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    assertThat(run.completion.thinkingBlocks())
        .containsExactly(ThinkingBlock.redacted("EmwKAhgBEgy3va3pzix"));
    assertThat(run.completion.thinking()).isEmpty();
    assertThat(run.completion.usage()).isEqualTo(LlmUsage.NONE);
  }

  @Test
  void aStreamCutBeforeItsStopIsAProtocolErrorKeepingOnlyFinishedToolCalls() {
    String full = dev.gadget.core.llm.Recordings.load("anthropic/tool-use.sse");
    ParseRun run = literal(full.substring(0, full.indexOf("event: content_block_stop\ndata: "
        + "{\"type\":\"content_block_stop\",\"index\":2}")));
    assertThat(run.error.kind()).isEqualTo(LlmException.Kind.PROTOCOL);
    assertThat(run.error).hasMessage("Anthropic stream ended before message_stop");
    assertThat(run.partial.text()).isEqualTo("Let me read it.");
    assertThat(run.partial.toolCalls()).isEmpty();
    assertThat(run.calls).isEmpty();
  }

  @Test
  void unknownEventsAndDeltasAreIgnored_aDeltaForAnUnknownBlockIsAProtocolError() {
    AnthropicStreamAssembler a = new AnthropicStreamAssembler(StreamEvents.NONE);
    a.acceptEvent("future_event", "{\"type\":\"future_event\",\"x\":1}");
    a.acceptEvent(null, "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
        + "{\"type\":\"text\",\"text\":\"\"}}");
    a.acceptEvent(null, "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
        + "{\"type\":\"citations_delta\",\"citation\":{}}}");
    assertThatThrownBy(() -> a.acceptEvent(null, "{\"type\":\"content_block_delta\",\"index\":"
        + "7,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}"))
        .isInstanceOfSatisfying(LlmException.class, e -> {
          assertThat(e.kind()).isEqualTo(LlmException.Kind.PROTOCOL);
          assertThat(e).hasMessageContaining("block 7");
        });
    assertThatThrownBy(() -> a.acceptEvent(null, "{\"type\":"))
        .isInstanceOfSatisfying(LlmException.class,
            e -> assertThat(e.kind()).isEqualTo(LlmException.Kind.PROTOCOL));
  }

  @Test
  void anInvalidErrorTypeIsNotRetryable() {
    ParseRun run = literal("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":"
        + "\"invalid_request_error\",\"message\":\"prompt is too long\"}}\n\n");
    assertThat(run.error.kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(run.error.isRetryable()).isFalse();
    assertThat(run.error.providerType()).isEqualTo("invalid_request_error");
  }
}
