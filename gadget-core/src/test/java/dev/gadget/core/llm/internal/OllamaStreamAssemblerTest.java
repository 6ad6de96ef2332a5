package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.LlmUsage;
import dev.gadget.core.llm.Recordings;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The Ollama parser on recorded streams, with read boundaries anywhere. */
class OllamaStreamAssemblerTest {
  private static void everySplit(String recording, Consumer<ParseRun> check) {
    for (List<byte[]> pieces : Chunks.splittings(Recordings.load(recording), 30)) {
      ParseRun run = ParseRun.ollama(pieces);
      check.accept(run);
      if (run.error == null) {
        assertThat(run.thinking.toString()).isEqualTo(run.completion.thinking());
        assertThat(run.text.toString()).isEqualTo(run.completion.text());
        assertThat(run.calls).isEqualTo(run.completion.toolCalls());
      }
    }
  }

  private static LlmToolCall call(String id, String name, String json) throws Exception {
    return new LlmToolCall(id, name, GadgetJson.mapper().readTree(json));
  }

  @Test
  void thinkingThenContentWithAllMetrics() {
    everySplit("ollama/thinking-then-content.ndjson", run -> {
      LlmCompletion c = run.completion;
      assertThat(c.thinking()).isEqualTo("Let me think about ünïcödé 🤔.");
      assertThat(c.text()).isEqualTo("Grüße, 世界 🌍!");
      assertThat(c.finishReason()).isEqualTo(FinishReason.STOP);
      assertThat(c.usage()).isEqualTo(new LlmUsage(26, 42, 0, Duration.ofSeconds(5),
          Duration.ofMillis(1), Duration.ofMillis(200), Duration.ofSeconds(4)));
      assertThat(run.shape()).containsExactly("thinking", "text");
    });
  }

  @Test
  void toolCallInADoneFalseChunk_stopBecomesToolCalls() throws Exception {
    LlmToolCall expected = call("gen_1", "get_weather", "{\"city\":\"Paris\",\"unit\":\"celsius\"}");
    everySplit("ollama/tool-call-in-stream.ndjson", run -> {
      assertThat(run.completion.toolCalls()).containsExactly(expected);
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
      assertThat(run.completion.thinking()).isEqualTo("Need the weather.");
      assertThat(run.completion.usage()).isEqualTo(
          new LlmUsage(80, 20, 0, Duration.ofMillis(1200), null, null, null));
      assertThat(run.shape()).containsExactly("thinking", "tool:get_weather");
    });
  }

  @Test
  void toolCallInsideTheDoneChunk() throws Exception {
    LlmToolCall expected = call("gen_1", "read_file", "{\"path\":\"README.md\"}");
    everySplit("ollama/tool-call-in-done-chunk.ndjson", run -> {
      assertThat(run.completion.toolCalls()).containsExactly(expected);
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    });
  }

  @Test
  void severalCallsInOneChunk() throws Exception {
    List<LlmToolCall> expected = List.of(call("gen_1", "read_file", "{\"path\":\"a.txt\"}"),
        call("gen_2", "read_file", "{\"path\":\"b.txt\"}"));
    everySplit("ollama/several-calls-in-one-chunk.ndjson", run -> {
      assertThat(run.completion.toolCalls()).isEqualTo(expected);
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
      assertThat(run.completion.usage()).isEqualTo(LlmUsage.NONE);
    });
  }

  @Test
  void callsSpreadOverChunksKeepTheServersIds() throws Exception {
    List<LlmToolCall> expected = List.of(call("call_a1", "read_file", "{\"path\":\"a.txt\"}"),
        call("call_b2", "list_dir", "{\"path\":\"src\",\"depth\":2}"));
    everySplit("ollama/calls-spread-over-chunks.ndjson", run -> {
      assertThat(run.completion.text()).isEqualTo("Reading both files.");
      assertThat(run.completion.toolCalls()).isEqualTo(expected);
      assertThat(run.shape()).containsExactly("text", "tool:read_file", "tool:list_dir");
    });
  }

  @Test
  void missingMetricsAndDoneReason() {
    everySplit("ollama/metrics-missing.ndjson", run -> {
      assertThat(run.completion.text()).isEqualTo("ok");
      assertThat(run.completion.finishReason()).isEqualTo(FinishReason.STOP);
      assertThat(run.completion.usage()).isEqualTo(LlmUsage.NONE);
    });
  }

  @Test
  void lengthLimit() {
    everySplit("ollama/length.ndjson",
        run -> assertThat(run.completion.finishReason()).isEqualTo(FinishReason.LENGTH));
  }

  @Test
  void anErrorLineEndsTheStreamAsAnErrorKeepingThePartialText() {
    everySplit("ollama/error-mid-stream.ndjson", run -> {
      assertThat(run.completion).isNull();
      assertThat(run.error.kind()).isEqualTo(LlmException.Kind.STREAM);
      assertThat(run.error.providerMessage())
          .isEqualTo("an error was encountered while running the model: unexpected EOF");
      assertThat(run.partial.text()).isEqualTo("Partial answer");
    });
  }

  @Test
  void aStreamWithoutItsDoneChunkIsAProtocolError() {
    everySplit("ollama/truncated.ndjson", run -> {
      assertThat(run.error.kind()).isEqualTo(LlmException.Kind.PROTOCOL);
      assertThat(run.error).hasMessageContaining("done");
      assertThat(run.partial.text()).isEqualTo("Cut off");
    });
  }

  @Test
  void linesAfterTheDoneChunkAreIgnored() {
    ParseRun run = new ParseRun();
    OllamaStreamAssembler a = new OllamaStreamAssembler(run, ParseRun.ids());
    a.acceptLine("{\"message\":{\"content\":\"x\"},\"done\":true,\"done_reason\":\"stop\"}");
    a.acceptLine("{\"message\":{\"content\":\"late\"},\"done\":false}");
    assertThat(a.finish().text()).isEqualTo("x");
  }

  @Test
  void malformedJsonAndStringArgumentsAndObjectErrors() {
    ParseRun run = new ParseRun();
    OllamaStreamAssembler a = new OllamaStreamAssembler(run, ParseRun.ids());
    a.acceptLine("{\"message\":{\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}}]},\"done\":false}");
    assertThat(run.calls.get(0).arguments().get("a").asInt()).isEqualTo(1);
    try {
      a.acceptLine("{\"message\":");
      throw new AssertionError("no exception");
    } catch (LlmException e) {
      assertThat(e.kind()).isEqualTo(LlmException.Kind.PROTOCOL);
      assertThat(e).hasMessageContaining("malformed");
    }
    try {
      new OllamaStreamAssembler(run, ParseRun.ids())
          .acceptLine("{\"error\":{\"message\":\"boom\",\"code\":500}}");
      throw new AssertionError("no exception");
    } catch (LlmException e) {
      assertThat(e.kind()).isEqualTo(LlmException.Kind.STREAM);
      assertThat(e.providerMessage()).isEqualTo("boom");
      assertThat(e.isRetryable()).isTrue();
    }
  }
}
