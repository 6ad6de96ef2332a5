package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.stream.StreamChunk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cancelling a turn while the model streams and while a command runs; command timeouts. */
class AgentCancellationTest {
  @TempDir Path tmp;
  TestRepo repo;

  @BeforeEach
  void setUp() throws Exception {
    repo = TestRepo.create(tmp, "README.md", "# Demo\n");
  }

  /** Remembers the calls it makes, to check they were cancelled. */
  static final class CapturingClient implements LlmClient {
    final LlmClient delegate;
    final List<LlmCall> calls = new CopyOnWriteArrayList<>();

    CapturingClient(LlmClient delegate) {
      this.delegate = delegate;
    }

    @Override
    public LlmCall stream(LlmRequest request, LlmListener listener) {
      LlmCall call = delegate.stream(request, listener);
      calls.add(call);
      return call;
    }
  }

  @Test
  void cancellingMidStreamClosesTheModelCallAndEndsCancelled() throws Exception {
    StringBuilder words = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      words.append("word").append(i).append(' ');
    }
    ScriptedLlmClient scripted = ScriptedLlmClient.builder()
        .tokenDelay(Duration.ofMillis(5))
        .reply(reply().thinking("thinking first").text(words.toString()).build())
        .build();
    CapturingClient llm = new CapturingClient(scripted);
    CountDownLatch streaming = new CountDownLatch(1);
    RecordingListener listener = new RecordingListener() {
      @Override
      public void onChunk(StreamChunk chunk) {
        super.onChunk(chunk);
        if (chunk instanceof StreamChunk.Response) {
          streaming.countDown();
        }
      }
    };
    AgentRun run = AgentLoop.builder().llmClient(llm).build()
        .start(AgentRequest.builder(repo.dir(), "m", "talk").build(), listener);

    assertThat(streaming.await(10, TimeUnit.SECONDS)).isTrue();
    run.cancel();
    AgentOutcome outcome = run.outcome().get(5, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.CANCELLED);
    assertThat(outcome.message()).isEqualTo("The turn was cancelled.");
    assertThat(listener.events).last().isEqualTo("complete CANCELLED");
    assertThat(listener.completions).hasValue(1);
    // The model's stream was closed: its call ended as cancelled, long before its 2000 words.
    LlmCall call = llm.calls.get(0);
    assertThat(call.result()).failsWithin(5, TimeUnit.SECONDS)
        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
        .satisfies(e -> assertThat(((LlmException) e.getCause()).kind())
            .isEqualTo(LlmException.Kind.CANCELLED));
    int chunksAtEnd = listener.chunks.size();
    assertThat(listener.responseText()).startsWith("word0").doesNotContain("word1999");
    assertThat(listener.chunks).hasSize(chunksAtEnd); // nothing after the terminal event
    assertThat(scripted.requests()).hasSize(1);
  }

  @Test
  void cancellingMidCommandKillsTheWholeProcessTree() throws Exception {
    // The shell, a background sleep, a sub-shell with its own sleep, and a sleep orphaned by a
    // sub-shell that exits at once (only the process group still finds it).
    String command = "echo $$ >> pids; "
        + "sleep 300 & echo $! >> pids; "
        + "sh -c 'sleep 300 & echo $! >> pids; wait' & echo $! >> pids; "
        + "( sleep 300 & echo $! >> pids ); "
        + "wait";
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("run_command", "{\"command\":\"" + command + "\"}").build(),
        reply().text("never reached").build());
    RecordingListener listener = new RecordingListener();
    AgentRun run = AgentLoop.builder().llmClient(llm).build()
        .start(AgentRequest.builder(repo.dir(), "m", "run it").build(), listener);

    List<Long> pids = repo.awaitPids("pids", 5);
    assertThat(pids).allMatch(TestRepo::alive);
    long started = System.nanoTime();
    run.cancel();
    AgentOutcome outcome = run.outcome().get(10, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.CANCELLED);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
    TestRepo.await("every process of the command to be gone", 10,
        () -> pids.stream().noneMatch(TestRepo::alive));
    assertThat(outcome.toolCalls()).singleElement().satisfies(c ->
        assertThat(c.response()).startsWith("Error: cancelled: the turn was cancelled and the "
            + "command's process tree was killed"));
    assertThat(listener.events).containsSubsequence("start run_command", "end run_command failed",
        "chunk toolCall run_command", "complete CANCELLED");
    assertThat(llm.requests()).hasSize(1);
  }

  @Test
  void aCommandThatTimesOutIsKilledWithItsChildrenAndTheTurnGoesOn() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("run_command", "{\"command\":\"echo started; sleep 300 & "
            + "echo $! >> pids; wait\",\"timeout_seconds\":1}").build(),
        reply().text("It timed out.").build());

    AgentOutcome outcome = AgentLoop.builder().llmClient(llm).build()
        .start(AgentRequest.builder(repo.dir(), "m", "run it").build(), new RecordingListener())
        .outcome().get(20, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    ToolCall call = outcome.toolCalls().get(0);
    assertThat(call.response()).isEqualTo("Error: timed out after 1 s; the command's process "
        + "tree was killed\nstarted\n");
    long pid = repo.awaitPids("pids", 1).get(0);
    TestRepo.await("the sleep to be killed", 10, () -> !TestRepo.alive(pid));
  }

  @Test
  void backgroundProcessesDoNotOutliveTheirCommand() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("run_command",
            "{\"command\":\"sleep 300 > /dev/null 2>&1 & echo $! > bg.pid; echo ok\"}").build(),
        reply().text("ok").build());

    AgentOutcome outcome = AgentLoop.builder().llmClient(llm).build()
        .start(AgentRequest.builder(repo.dir(), "m", "run it").build(), new RecordingListener())
        .outcome().get(20, TimeUnit.SECONDS);

    assertThat(outcome.toolCalls().get(0).response()).isEqualTo("exit code: 0\nok\n");
    long pid = repo.awaitPids("bg.pid", 1).get(0);
    TestRepo.await("the background sleep to be killed", 10, () -> !TestRepo.alive(pid));
  }

  @Test
  void cancellingACustomBlockingToolInterruptsIt() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    Tool blocking = new Tool() {
      @Override
      public String name() {
        return "wait_forever";
      }

      @Override
      public String description() {
        return "waits";
      }

      @Override
      public com.fasterxml.jackson.databind.JsonNode parameters() {
        return dev.gadget.core.GadgetJson.mapper().createObjectNode().put("type", "object");
      }

      @Override
      public ToolResult execute(com.fasterxml.jackson.databind.JsonNode arguments,
          ToolContext context) throws Exception {
        running.countDown();
        new CountDownLatch(1).await();
        return ToolResult.ok("unreachable");
      }
    };
    ScriptedLlmClient llm = ScriptedLlmClient.of(reply().toolCall("wait_forever", "{}").build());
    AgentRun run = AgentLoop.builder().llmClient(llm).tools(List.of(blocking)).build()
        .start(AgentRequest.builder(repo.dir(), "m", "wait").build(), new RecordingListener());

    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    // The future a caller holds is a copy: cancelling it does not touch the run.
    assertThat(run.outcome().cancel(true)).isTrue();
    assertThat(run.outcome()).isNotDone();
    run.cancel();
    AgentOutcome outcome = run.outcome().get(5, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.CANCELLED);
    assertThat(outcome.toolCalls().get(0).response())
        .isEqualTo("Error: interrupted: the turn was cancelled while wait_forever ran");
  }

  @Test
  void outcomeFutureNeverFailsEvenWhenTheCallbackDoes() {
    ScriptedLlmClient llm = ScriptedLlmClient.of(reply().text("x").build());
    AgentRun run = AgentLoop.builder().llmClient(llm).build().start(
        AgentRequest.builder(repo.dir(), "m", "hi").build(), new AgentListener() {
          @Override
          public void onComplete(AgentOutcome outcome) {
            throw new CompletionException(new IllegalStateException("listener bug"));
          }
        });
    assertThat(run.outcome()).succeedsWithin(10, TimeUnit.SECONDS)
        .satisfies(o -> assertThat(o.status()).isEqualTo(AgentOutcome.Status.FINISHED));
  }
}
