package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.LlmUsage;
import dev.gadget.core.llm.Recordings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The OpenAI-compatible parser on recorded streams, with read boundaries anywhere. */
class OpenAiStreamAssemblerTest {
  private static void everySplit(String stream, Consumer<ParseRun> check) {
    for (List<byte[]> pieces : Chunks.splittings(stream, 30)) {
      ParseRun run = ParseRun.openAi(pieces);
      check.accept(run);
      if (run.error == null) {
        assertThat(run.thinking.toString()).isEqualTo(run.completion.thinking());
        assertThat(run.text.toString()).isEqualTo(run.completion.text());
        assertThat(run.calls).isEqualTo(run.completion.toolCalls());
      }
    }
  }

  private static void recording(String name, Consumer<ParseRun> check) {
    everySplit(Recordings.load("openai/" + name), check);
  }

  private static LlmToolCall call(String id, String name, String json) {
    try {
      return new LlmToolCall(id, name, GadgetJson.mapper().readTree(json));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static LlmUsage usage(long prompt, long completion, long reasoning) {
    return new LlmUsage(prompt, completion, reasoning, null, null, null, null);
  }

  @Test
  void textWithUsageOnAnEmptyChoicesChunk() {
    recording("text-with-usage.sse", run -> {
      assertThat(run.completion.text()).isEqualTo("Grüße, 世界 🌍!");
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.STOP);
      assertThat(run.completion.usage()).isEqualTo(usage(12, 5, 0));
    });
  }

  @Test
  void argumentsSplitInsideAnEscape() {
    recording("tool-args-split-in-escape.sse", run -> {
      assertThat(run.completion.toolCalls()).containsExactly(call("call_W1", "write_file",
          "{\"path\":\"src/Main.java\",\"content\":\"say \\\"hi\\\"\\né\"}"));
      assertThat(run.completion.toolCalls().get(0).arguments().get("content").asText())
          .isEqualTo("say \"hi\"\né");
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
      assertThat(run.completion.usage()).isEqualTo(usage(40, 25, 0));
    });
  }

  @Test
  void parallelCallsInterleavedByIndex() {
    recording("parallel-calls-interleaved.sse", run -> {
      assertThat(run.completion.toolCalls()).containsExactly(
          call("call_AAA", "read_file", "{\"path\":\"a.txt\"}"),
          call("call_BBB", "list_dir", "{\"path\":\"src\"}"));
      assertThat(run.shape()).containsExactly("tool:read_file", "tool:list_dir");
    });
  }

  @Test
  void fragmentsWithoutIndex() {
    recording("tool-calls-index-missing.sse", run -> assertThat(run.completion.toolCalls())
        .containsExactly(call("call_1", "read_file", "{\"path\":\"a.txt\"}"),
            call("call_2", "read_file", "{\"path\":\"b.txt\"}")));
  }

  @Test
  void indicesNotStartingAtZero_andStopAfterToolCallsMeansToolCalls() {
    recording("tool-indices-from-one-then-stop.sse", run -> {
      assertThat(run.completion.text()).isEqualTo("Let me look.");
      assertThat(run.completion.toolCalls()).containsExactly(
          call("toolu_01", "grep", "{\"pattern\":\"TODO\"}"),
          call("toolu_02", "read_file", "{}"));
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
      assertThat(run.shape()).containsExactly("text", "tool:grep", "tool:read_file");
    });
  }

  @Test
  void deepSeekReasoningContentWithUsageOnTheFinishChunk() {
    recording("reasoning-content.sse", run -> {
      assertThat(run.completion.thinking()).isEqualTo("The user greets me.");
      assertThat(run.completion.text()).isEqualTo("Hello!");
      assertThat(run.completion.usage()).isEqualTo(usage(10, 20, 12));
      assertThat(run.shape()).containsExactly("thinking", "text");
    });
  }

  @Test
  void openRouterReasoningIsNotCountedTwice() {
    recording("openrouter-reasoning-details.sse", run -> {
      assertThat(run.completion.thinking()).isEqualTo("Thinking hard.");
      assertThat(run.completion.text()).isEqualTo("Done.");
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.STOP);
      assertThat(run.completion.usage()).isEqualTo(usage(20, 40, 30));
    });
  }

  @Test
  void reasoningDetailsAloneStillCount() {
    everySplit("data: {\"choices\":[{\"delta\":{\"reasoning_details\":[{\"type\":\"reasoning.summary\","
        + "\"summary\":\"S\"},{\"type\":\"reasoning.text\",\"text\":\"T\"},{\"type\":\"reasoning.encrypted\","
        + "\"data\":\"xx\"}]},\"finish_reason\":\"stop\"}]}\n\n",
        run -> assertThat(run.completion.thinking()).isEqualTo("ST"));
  }

  @Test
  void usageWithChoicesNull() {
    recording("usage-with-null-choices.sse", run -> {
      assertThat(run.completion.text()).isEqualTo("Hi");
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.LENGTH);
      assertThat(run.completion.usage()).isEqualTo(usage(3, 1, 0));
    });
  }

  @Test
  void endOfInputRightAfterAFinishReasonIsSuccess() {
    recording("eof-after-finish.sse", run -> {
      assertThat(run.error).isNull();
      assertThat(run.completion.text()).isEqualTo("Bye");
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.STOP);
    });
  }

  @Test
  void sseFramingAsServersSendIt() {
    everySplit(Recordings.SSE_FRAMING, run -> {
      assertThat(run.error).isNull();
      assertThat(run.completion.text()).isEqualTo("abcd");
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.STOP);
    });
  }

  @Test
  void anErrorInTheStreamEndsItAsAnError() {
    recording("error-mid-stream.sse", run -> {
      assertThat(run.completion).isNull();
      assertThat(run.error.kind()).isEqualTo(LlmException.Kind.STREAM);
      assertThat(run.error.providerMessage()).isEqualTo("Upstream provider overloaded");
      assertThat(run.error.providerCode()).isEqualTo("502");
      assertThat(run.error.isRetryable()).isTrue();
      assertThat(run.partial.text()).isEqualTo("Partial");
    });
  }

  @Test
  void anErrorEventAndAFinishReasonOfErrorAreErrorsToo() {
    everySplit("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\nevent: error\n"
        + "data: {\"message\":\"overloaded\",\"code\":\"busy\"}\n\n", run -> {
          assertThat(run.error.kind()).isEqualTo(LlmException.Kind.STREAM);
          assertThat(run.error.providerMessage()).isEqualTo("overloaded");
          assertThat(run.error.isRetryable()).isFalse();
        });
    everySplit("data: {\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"error\"}]}\n\n",
        run -> assertThat(run.error.kind()).isEqualTo(LlmException.Kind.STREAM));
  }

  @Test
  void aStreamEndingBeforeAnyFinishIsAProtocolError() {
    recording("truncated.sse", run -> {
      assertThat(run.error.kind()).isEqualTo(LlmException.Kind.PROTOCOL);
      assertThat(run.partial.text()).isEqualTo("Cut off");
      assertThat(run.partial.finishReason()).isEqualTo(FinishReason.OTHER);
    });
    everySplit("", run -> assertThat(run.error.kind()).isEqualTo(LlmException.Kind.PROTOCOL));
  }

  @Test
  void partialToolCallsAreNotReportedAsComplete() {
    ParseRun run = ParseRun.openAi(List.of(("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,"
        + "\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n")
        .getBytes(StandardCharsets.UTF_8)));
    assertThat(run.error.kind()).isEqualTo(LlmException.Kind.PROTOCOL);
    assertThat(run.partial.toolCalls()).isEmpty();
    assertThat(run.calls).isEmpty();
  }

  @Test
  void invalidOrEmptyArgumentsAndMissingIds() {
    ParseRun run = new ParseRun();
    OpenAiStreamAssembler a = new OpenAiStreamAssembler(run, ParseRun.ids());
    a.acceptEvent(null, "{\"choices\":[{\"delta\":{\"tool_calls\":["
        + "{\"index\":0,\"function\":{\"name\":\"a\",\"arguments\":\"{oops\"}},"
        + "{\"index\":1,\"function\":{\"name\":\"b\"}}]}}]}");
    a.acceptEvent(null, "{\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}");
    a.acceptEvent(null, "[DONE]");
    a.acceptEvent(null, "{\"choices\":[{\"delta\":{\"content\":\"after done\"}}]}");
    assertThat(run.calls).extracting(LlmToolCall::id).containsExactly("gen_1", "gen_2");
    assertThat(run.calls.get(0).arguments().isTextual()).isTrue();
    assertThat(run.calls.get(0).arguments().asText()).isEqualTo("{oops");
    assertThat(run.calls.get(1).arguments().isObject()).isTrue();
    assertThat(a.finish().text()).isEmpty();
  }

  @Test
  void aReusedIndexWithANewIdStartsANewCall() {
    ParseRun run = new ParseRun();
    OpenAiStreamAssembler a = new OpenAiStreamAssembler(run, ParseRun.ids());
    a.acceptEvent(null, "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"x\","
        + "\"function\":{\"name\":\"a\",\"arguments\":\"{}\"}}]}}]}");
    a.acceptEvent(null, "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"y\","
        + "\"function\":{\"name\":\"b\",\"arguments\":\"{}\"}}]}}]}");
    a.acceptEvent(null, "[DONE]");
    assertThat(run.calls).extracting(LlmToolCall::name).containsExactly("a", "b");
    assertThat(a.finish().finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
  }

  @Test
  void otherChoicesAreIgnored() {
    ParseRun run = new ParseRun();
    OpenAiStreamAssembler a = new OpenAiStreamAssembler(run, ParseRun.ids());
    a.acceptEvent(null, "{\"choices\":[{\"index\":1,\"delta\":{\"content\":\"B\"}},"
        + "{\"index\":0,\"delta\":{\"content\":\"A\"},\"finish_reason\":\"stop\"}]}");
    assertThat(a.finish().text()).isEqualTo("A");
  }

  @Test
  void malformedDataIsAProtocolError() {
    OpenAiStreamAssembler a = new OpenAiStreamAssembler(StreamEvents.NONE, ParseRun.ids());
    assertThatThrownBy(() -> a.acceptEvent(null, "{\"choices\":"))
        .isInstanceOfSatisfying(LlmException.class,
            e -> assertThat(e.kind()).isEqualTo(LlmException.Kind.PROTOCOL));
    assertThatThrownBy(() -> a.acceptEvent(null, "[1,2]")).isInstanceOf(LlmException.class);
  }

  @Test
  void aNonStreamedJsonCompletionIsReadToo() {
    ParseRun run = ParseRun.run((ev, ids) -> StreamParser.openAiJson(ev, ids, 1 << 20),
        List.of(Recordings.load("openai/non-streamed.json").getBytes(StandardCharsets.UTF_8)));
    assertThat(run.completion.text()).isEqualTo("Whole answer");
    assertThat(run.completion.thinking()).isEqualTo("Brief thought");
    assertThat(run.completion.toolCalls()).containsExactly(call("call_z", "read_file", "{\"path\":\"x\"}"));
    assertThat(run.completion.usage()).isEqualTo(usage(5, 7, 0));

    ParseRun error = ParseRun.run((ev, ids) -> StreamParser.openAiJson(ev, ids, 1 << 20),
        List.of("{\"error\":{\"message\":\"nope\"}}".getBytes(StandardCharsets.UTF_8)));
    assertThat(error.error.kind()).isEqualTo(LlmException.Kind.STREAM);
    ParseRun other = ParseRun.run((ev, ids) -> StreamParser.openAiJson(ev, ids, 1 << 20),
        List.of("{\"hello\":1}".getBytes(StandardCharsets.UTF_8)));
    assertThat(other.error.kind()).isEqualTo(LlmException.Kind.PROTOCOL);
  }

  @Test
  void bytesAfterDoneAreIgnored() {
    StreamParser p = StreamParser.openAi(StreamEvents.NONE, ParseRun.ids(), 1 << 20);
    p.feed(ByteBuffer.wrap("data: [DONE]\n\ngarbage that is not SSE {".getBytes(StandardCharsets.UTF_8)));
    assertThat(p.isDone()).isTrue();
    p.feed(ByteBuffer.wrap("more".getBytes(StandardCharsets.UTF_8)));
    assertThat(p.finish().finishReason()).isEqualTo(FinishReason.STOP);
  }
}
