package dev.gadget.core.llm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.RecordingListener.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ScriptedLlmClientTest {
  private static LlmRequest ask(String prompt) {
    return new LlmRequest("scripted", List.of(LlmMessage.user(prompt)), null, null, null);
  }

  @Test
  void streamsThinkingTextAndToolCallsInScriptOrderThenCompletesOnce() {
    ScriptedLlmClient client = ScriptedLlmClient.of(ScriptedLlmClient.reply()
        .thinking("Let me see").text("Hello big world")
        .toolCall("read_file", "{\"path\":\"a.txt\"}").build());
    RecordingListener l = new RecordingListener();
    LlmCall call = client.stream(ask("hi"), l);
    LlmCompletion c = l.assertContract().completed();
    assertThat(l.events).containsExactly("thinking:Let", "thinking: me", "thinking: see",
        "text:Hello", "text: big", "text: world", "tool:read_file", "complete");
    assertThat(c.text()).isEqualTo("Hello big world");
    assertThat(c.thinking()).isEqualTo("Let me see");
    assertThat(c.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(c.toolCalls()).singleElement().satisfies(t -> {
      assertThat(t.id()).startsWith("call_");
      assertThat(t.arguments().get("path").asText()).isEqualTo("a.txt");
    });
    assertThat(c.usage().completionTokens()).isEqualTo(6);
    assertThat(call.result()).succeedsWithin(5, TimeUnit.SECONDS).isEqualTo(c);
  }

  @Test
  void aReplyWithoutToolCallsStops_andInvalidJsonArgumentsArePassedOnAsText() {
    ScriptedLlmClient client = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().text("Done.").build(),
        ScriptedLlmClient.reply().toolCall("write_file", "{not json").build());
    RecordingListener first = new RecordingListener();
    client.stream(ask("a"), first);
    assertThat(first.assertContract().completed().finishReason()).isEqualTo(FinishReason.STOP);
    RecordingListener second = new RecordingListener();
    client.stream(ask("b"), second);
    LlmToolCall call = second.assertContract().completed().toolCalls().get(0);
    assertThat(call.arguments().isTextual()).isTrue();
    assertThat(call.arguments().asText()).isEqualTo("{not json");
  }

  @Test
  void aFailStepEndsTheReplyWithAStreamErrorAndWhatCameBefore() {
    ScriptedLlmClient client = ScriptedLlmClient.of(ScriptedLlmClient.reply()
        .text("Half an answer").fail("model crashed").text("never sent").build());
    RecordingListener l = new RecordingListener();
    LlmCall call = client.stream(ask("x"), l);
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.STREAM);
    assertThat(o.failed()).hasMessage("model crashed");
    assertThat(o.partial().text()).isEqualTo("Half an answer");
    assertThat(call.result()).failsWithin(5, TimeUnit.SECONDS);
  }

  @Test
  void runningOutOfRepliesIsAClientError() {
    ScriptedLlmClient client = ScriptedLlmClient.of(ScriptedLlmClient.reply().text("one").build());
    client.stream(ask("1"), new RecordingListener()).result().join();
    RecordingListener l = new RecordingListener();
    client.stream(ask("2"), l);
    LlmException e = l.assertContract().failed();
    assertThat(e.kind()).isEqualTo(LlmException.Kind.CLIENT);
    assertThat(e).hasMessageContaining("no reply left");
    assertThat(l.events).containsExactly("error:CLIENT");
  }

  @Test
  void recordsEveryRequestInOrder_andTheScriptAnswersOnceTheQueueIsEmpty() {
    ScriptedLlmClient client = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("queued").build())
        .script(req -> ScriptedLlmClient.reply()
            .text("echo " + req.messages().get(0).content()).build())
        .build();
    assertThat(client.remaining()).isEqualTo(1);
    List<String> texts = new ArrayList<>();
    for (String prompt : List.of("a", "b", "c")) {
      RecordingListener l = new RecordingListener();
      client.stream(ask(prompt), l);
      texts.add(l.assertContract().completed().text());
    }
    assertThat(texts).containsExactly("queued", "echo b", "echo c");
    assertThat(client.remaining()).isZero();
    assertThat(client.requests()).extracting(r -> r.messages().get(0).content())
        .containsExactly("a", "b", "c");
  }

  @Test
  void cancelStopsThePlaybackWithCancelledOnce() {
    ScriptedLlmClient client = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("word ".repeat(500)).build())
        .tokenDelay(Duration.ofMillis(5)).build();
    RecordingListener l = new RecordingListener();
    LlmCall call = client.stream(ask("long"), l);
    l.awaitFirstEvent();
    call.cancel();
    call.cancel();
    Outcome o = l.assertContract();
    assertThat(o.failed().kind()).isEqualTo(LlmException.Kind.CANCELLED);
    assertThat(l.textDeltas.size()).isLessThan(500);
    assertThat(call.result()).failsWithin(5, TimeUnit.SECONDS);
  }

  @Test
  void cancelAfterTheEndDoesNothing() {
    ScriptedLlmClient client = ScriptedLlmClient.of(ScriptedLlmClient.reply().text("ok").build());
    RecordingListener l = new RecordingListener();
    LlmCall call = client.stream(ask("x"), l);
    call.result().join();
    call.cancel();
    l.assertContract().completed();
    assertThat(call.result()).isCompletedWithValueMatching(c -> c.text().equals("ok"));
  }

  @Test
  void aListenerThatThrowsDoesNotBreakThePlayback() {
    ScriptedLlmClient client = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().thinking("hm").text("a b c").build());
    RecordingListener l = new RecordingListener().onEachEvent(e -> {
      throw new IllegalStateException("listener bug (expected by the test)");
    });
    client.stream(ask("x"), l);
    assertThat(l.assertContract().completed().text()).isEqualTo("a b c");
  }

  @Test
  void concurrentCallsEachGetOneReplyInOrderOfTheirEvents() {
    ScriptedLlmClient.Builder b = ScriptedLlmClient.builder();
    for (int i = 0; i < 20; i++) {
      b.reply(ScriptedLlmClient.reply().thinking("t " + i).text("reply number " + i).build());
    }
    ScriptedLlmClient client = b.build();
    List<RecordingListener> listeners = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      RecordingListener l = new RecordingListener();
      listeners.add(l);
      threads.add(new Thread(() -> client.stream(ask("q"), l)));
    }
    threads.forEach(Thread::start);
    List<String> texts = new ArrayList<>();
    for (RecordingListener l : listeners) {
      LlmCompletion c = l.assertContract().completed();
      texts.add(c.text());
      assertThat(l.events.get(0)).startsWith("thinking:");
    }
    assertThat(texts).hasSize(20).doesNotHaveDuplicates()
        .allMatch(t -> t.startsWith("reply number "));
    assertThat(client.requests()).hasSize(20);
  }
}
