package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.RecordingListener.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The compatibility kit every {@link LlmClient} passes: extend it, and make the client under
 * test answer with the given {@link Script}. Shipped in the gadget-core test-jar, with
 * {@link LlmTestServer} and {@link RecordingListener} for HTTP-based clients.
 */
public abstract class LlmClientContract {
  /** A tool call a script asks for. */
  public record ToolCallSpec(String name, String argumentsJson) {}

  /**
   * What the client under test must answer: reasoning, then text, then tool calls (each may be
   * empty). Text and reasoning are made of words separated by single spaces.
   */
  public record Script(String thinking, String text, List<ToolCallSpec> toolCalls) {}

  /** A client whose next {@code times} calls each answer with {@code script}. */
  protected abstract LlmClient clientAnswering(Script script, int times);

  /**
   * A client whose next call streams some text and then keeps streaming (or stays silent)
   * until it is cancelled.
   */
  protected abstract LlmClient clientThatNeverFinishes();

  /** A request. */
  protected LlmRequest request() {
    return new LlmRequest("contract-model", List.of(LlmMessage.user("hi")), null, null, null);
  }

  private static JsonNode json(String s) {
    try {
      return GadgetJson.mapper().readTree(s);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void streamsThinkingThenTextThenCompletesExactlyOnce() throws Exception {
    Script script = new Script("Let me think about it", "The answer is forty two", List.of());
    RecordingListener l = new RecordingListener();
    LlmCall call = clientAnswering(script, 1).stream(request(), l);
    LlmCompletion c = l.assertContract().completed();
    assertThat(c.thinking()).isEqualTo(script.thinking());
    assertThat(c.text()).isEqualTo(script.text());
    assertThat(c.toolCalls()).isEmpty();
    assertThat(c.finishReason()).isEqualTo(FinishReason.STOP);
    int lastThinking = -1;
    int firstText = Integer.MAX_VALUE;
    for (int i = 0; i < l.events.size(); i++) {
      if (l.events.get(i).startsWith("thinking:")) {
        lastThinking = i;
      } else if (l.events.get(i).startsWith("text:")) {
        firstText = Math.min(firstText, i);
      }
    }
    assertThat(lastThinking).as("thinking streams before text").isLessThan(firstText);
    assertThat(call.result().get(5, TimeUnit.SECONDS)).isEqualTo(c);
  }

  @Test
  void toolCallsArriveCompleteWithParsedArgumentsAndUniqueIds() {
    Script script = new Script("", "Reading.", List.of(
        new ToolCallSpec("read_file", "{\"path\":\"a.txt\"}"),
        new ToolCallSpec("list_dir", "{\"path\":\"src\",\"depth\":2}")));
    RecordingListener l = new RecordingListener();
    clientAnswering(script, 1).stream(request(), l);
    LlmCompletion c = l.assertContract().completed();
    assertThat(c.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(c.toolCalls()).extracting(LlmToolCall::name).containsExactly("read_file", "list_dir");
    assertThat(c.toolCalls()).extracting(LlmToolCall::arguments)
        .containsExactly(json("{\"path\":\"a.txt\"}"), json("{\"path\":\"src\",\"depth\":2}"));
    assertThat(c.toolCalls()).extracting(LlmToolCall::id).allMatch(id -> !id.isEmpty())
        .doesNotHaveDuplicates();
  }

  @Test
  void cancelEndsTheCallWithCancelledExactlyOnce() throws Exception {
    RecordingListener l = new RecordingListener();
    LlmCall call = clientThatNeverFinishes().stream(request(), l);
    l.awaitFirstEvent();
    call.cancel();
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.CANCELLED);
    call.cancel();
    try {
      call.result().get(5, TimeUnit.SECONDS);
      throw new AssertionError("result() completed normally after cancel()");
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOfSatisfying(LlmException.class,
          x -> assertThat(x.kind()).isEqualTo(LlmException.Kind.CANCELLED));
    }
    assertThat(l.events).filteredOn(e -> e.startsWith("error:") || e.equals("complete")).hasSize(1);
  }

  @Test
  void oneClientServesManyConcurrentCalls() {
    Script script = new Script("hmm", "same answer for all", List.of());
    LlmClient client = clientAnswering(script, 25);
    List<RecordingListener> listeners = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      RecordingListener l = new RecordingListener();
      listeners.add(l);
      client.stream(request(), l);
    }
    for (RecordingListener l : listeners) {
      assertThat(l.assertContract().completed().text()).isEqualTo(script.text());
    }
  }

  @Test
  void aListenerThatThrowsDoesNotBreakTheCall() {
    Script script = new Script("a b", "c d e", List.of(new ToolCallSpec("t", "{}")));
    RecordingListener l = new RecordingListener().onEachEvent(e -> {
      throw new IllegalStateException("listener bug (expected by the test)");
    });
    clientAnswering(script, 1).stream(request(), l);
    LlmCompletion c = l.assertContract().completed();
    assertThat(c.text()).isEqualTo("c d e");
    assertThat(c.toolCalls()).hasSize(1);
  }
}
