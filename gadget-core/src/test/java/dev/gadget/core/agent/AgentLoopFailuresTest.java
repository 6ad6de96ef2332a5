package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.stream.StreamChunk;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What goes wrong around the loop: a failing tool, model, listener, directory or executor, and a
 * run cancelled before it starts.
 */
class AgentLoopFailuresTest extends AgentLoopFixture {
  @Test
  void aToolFailureGoesBackToTheModelAndTheTurnGoesOn() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("read_file", "{\"path\":\"src/Greeting.java\"}").build(),
        reply().toolCall("edit_file", "{\"path\":\"src/Greeting.java\","
            + "\"old_text\":\"return \\\"Goodbye\\\";\",\"new_text\":\"x\"}").build(),
        reply().toolCall("no_such_tool", "{}").build(),
        reply().toolCall("read_file", "{not json").build(),
        reply().toolCall("read_file", "{\"path\":\"missing.txt\"}").build(),
        reply().text("I could not do it.").build());
    RecordingListener listener = new RecordingListener();

    AgentOutcome outcome = run(AgentLoop.builder().llmClient(llm).build(),
        request("Edit it"), listener);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(repo.read("src/Greeting.java")).isEqualTo(GREETING);
    List<LlmMessage> last = llm.requests().get(5).messages();
    List<String> results = last.stream().filter(m -> m.role() == Role.TOOL)
        .map(LlmMessage::content).toList();
    assertThat(results).hasSize(5);
    assertThat(results.get(1)).startsWith("Error: old_text was not found in src/Greeting.java")
        .contains("nothing was changed");
    assertThat(results.get(2)).startsWith("Error: there is no tool named \"no_such_tool\"")
        .contains("read_file, write_file");
    assertThat(results.get(3))
        .isEqualTo("Error: the arguments of read_file must be a JSON object; got: {not json");
    assertThat(results.get(4)).isEqualTo("Error: missing.txt does not exist");
    assertThat(listener.events).filteredOn(e -> e.startsWith("end "))
        .containsExactly("end read_file ok", "end edit_file failed", "end no_such_tool failed",
            "end read_file failed", "end read_file failed");
  }

  @Test
  void aFailedModelCallEndsTheTurnAsAnError() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().text("partial answer").fail("the server fell over").build());
    RecordingListener listener = new RecordingListener();

    AgentOutcome outcome = run(AgentLoop.builder().llmClient(llm).build(), request("hi"),
        listener);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.ERROR);
    assertThat(outcome.message()).isEqualTo("The model call failed: the server fell over");
    assertThat(outcome.error()).isInstanceOf(LlmException.class);
    assertThat(outcome.stats().llmCalls()).isEqualTo(1);
    assertThat(outcome.stats().completionTokens()).isPositive(); // the partial reply's usage
    assertThat(listener.responseText()).isEqualTo("partial answer");
    assertThat(listener.events).last().isEqualTo("complete ERROR");
  }

  @Test
  void aMissingProjectDirectoryIsAnErrorOutcome() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(reply().text("x").build());
    AgentRequest req = AgentRequest.builder(tmp.resolve("nope"), "m", "hi").build();

    AgentOutcome outcome = run(AgentLoop.builder().llmClient(llm).build(), req,
        new RecordingListener());

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.ERROR);
    assertThat(outcome.message()).startsWith("The project directory cannot be used");
    assertThat(llm.requests()).isEmpty();
  }

  @Test
  void aThrowingListenerNeverBreaksTheLoop() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().thinking("hm").toolCall("write_file",
            "{\"path\":\"new.txt\",\"content\":\"x\"}").build(),
        reply().text("done").build());
    AtomicInteger calls = new AtomicInteger();
    AgentListener throwing = new AgentListener() {
      @Override
      public void onIteration(int iteration) {
        calls.incrementAndGet();
        throw new IllegalStateException("boom");
      }

      @Override
      public void onChunk(StreamChunk chunk) {
        calls.incrementAndGet();
        throw new IllegalStateException("boom");
      }

      @Override
      public void onToolStart(ToolCall call) {
        calls.incrementAndGet();
        throw new IllegalStateException("boom");
      }

      @Override
      public void onComplete(AgentOutcome outcome) {
        calls.incrementAndGet();
        throw new IllegalStateException("boom");
      }
    };

    AgentOutcome outcome = run(AgentLoop.builder().llmClient(llm).build(), request("go"),
        throwing);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.text()).isEqualTo("done");
    assertThat(repo.read("new.txt")).isEqualTo("x");
    // 2 iterations, thinking + toolCall + response chunks, 1 tool start, 1 completion
    assertThat(calls.get()).isEqualTo(2 + 3 + 1 + 1);
  }

  @Test
  void aRunCancelledBeforeItStartsEndsCancelledAtOnce() throws Exception {
    List<Runnable> queued = new ArrayList<>();
    ScriptedLlmClient llm = ScriptedLlmClient.of(reply().text("x").build());
    AgentLoop loop = AgentLoop.builder().llmClient(llm).executor(queued::add).build();
    RecordingListener listener = new RecordingListener();

    AgentRun run = loop.start(request("hi"), listener);
    run.cancel();
    run.cancel();
    AgentOutcome outcome = run.outcome().get(1, TimeUnit.SECONDS);
    queued.forEach(Runnable::run);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.CANCELLED);
    assertThat(outcome.status().toTurnStatus()).isEqualTo(TurnStatus.CANCELLED);
    assertThat(listener.events).containsExactly("complete CANCELLED");
    assertThat(llm.requests()).isEmpty();
  }

  @Test
  void aRejectedRunEndsAsAnError() throws Exception {
    AgentLoop loop = AgentLoop.builder().llmClient(ScriptedLlmClient.of())
        .executor(r -> {
          throw new java.util.concurrent.RejectedExecutionException("full");
        })
        .build();
    AgentOutcome outcome = loop.start(request("hi"), new RecordingListener())
        .outcome().get(1, TimeUnit.SECONDS);
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.ERROR);
    assertThat(outcome.message()).contains("executor refused");
  }
}
