package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.stream.BlockAggregator;
import dev.gadget.core.stream.StreamChunk;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loop driven by {@link ScriptedLlmClient} on a real git repository. */
class AgentLoopTest {
  private static final String GREETING =
      "class Greeting {\n  String text() {\n    return \"Hello\";\n  }\n}\n";

  @TempDir Path tmp;
  TestRepo repo;

  @BeforeEach
  void setUp() throws Exception {
    repo = TestRepo.create(tmp, "src/Greeting.java", GREETING, "README.md", "# Demo\n");
  }

  private AgentOutcome run(AgentLoop loop, AgentRequest request, AgentListener listener)
      throws Exception {
    return loop.start(request, listener).outcome().get(20, TimeUnit.SECONDS);
  }

  private AgentRequest request(String prompt) {
    return AgentRequest.builder(repo.dir(), "test-model", prompt).projectName("Demo").build();
  }

  @Test
  void multiStepEditTaskEndsWithTheFilesOnDiskAndEveryEventInOrder() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().thinking("Let me look around.").toolCall("list_dir", "{\"path\":\"src\"}").build(),
        reply().toolCall("read_file", "{\"path\":\"src/Greeting.java\"}").build(),
        reply().text("Changing the greeting.")
            .toolCall("edit_file", "{\"path\":\"src/Greeting.java\","
                + "\"old_text\":\"return \\\"Hello\\\";\","
                + "\"new_text\":\"return \\\"Hello, world\\\";\"}")
            .toolCall("write_file",
                "{\"path\":\"src/Farewell.java\",\"content\":\"class Farewell {}\\n\"}")
            .build(),
        reply().toolCall("run_command",
            "{\"command\":\"git add -A && git commit -q -m agent && git rev-list --count HEAD\"}")
            .build(),
        reply().thinking("All done.").text("Done: the greeting changed and Farewell was added.")
            .build());
    AgentLoop loop = AgentLoop.builder().llmClient(llm).build();
    RecordingListener listener = new RecordingListener();

    AgentOutcome outcome = run(loop, request("Say hello to the world"), listener);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.status().toTurnStatus()).isEqualTo(TurnStatus.FINISHED);
    assertThat(outcome.message()).isNull();
    assertThat(outcome.text()).isEqualTo("Done: the greeting changed and Farewell was added.");
    assertThat(repo.read("src/Greeting.java")).isEqualTo(GREETING.replace("Hello", "Hello, world"));
    assertThat(repo.read("src/Farewell.java")).isEqualTo("class Farewell {}\n");
    assertThat(repo.git("rev-list", "--count", "HEAD").strip()).isEqualTo("2");
    assertThat(repo.git("status", "--porcelain")).isEmpty();

    assertThat(outcome.stats().toolCallCount()).isEqualTo(5);
    assertThat(outcome.stats().llmCalls()).isEqualTo(5);
    assertThat(outcome.stats().completionTokens()).isPositive();
    assertThat(outcome.toolCalls()).extracting(ToolCall::name)
        .containsExactly("list_dir", "read_file", "edit_file", "write_file", "run_command");
    assertThat(outcome.toolCalls().get(0).response()).isEqualTo("Greeting.java\n");
    assertThat(outcome.toolCalls().get(1).response()).isEqualTo(GREETING);
    assertThat(outcome.toolCalls().get(4).response()).isEqualTo("exit code: 0\n2\n");

    assertThat(listener.events).containsExactly(
        "iteration 1", "chunk thinking",
        "start list_dir", "end list_dir ok", "chunk toolCall list_dir",
        "iteration 2", "start read_file", "end read_file ok", "chunk toolCall read_file",
        "iteration 3", "chunk response",
        "start edit_file", "end edit_file ok", "chunk toolCall edit_file",
        "start write_file", "end write_file ok", "chunk toolCall write_file",
        "iteration 4", "start run_command", "end run_command ok", "chunk toolCall run_command",
        "iteration 5", "chunk thinking", "chunk response",
        "complete FINISHED");
    assertThat(listener.completions).hasValue(1);
    assertThat(listener.ended).isEqualTo(outcome.toolCalls());

    // The chunks feed a BlockAggregator as they are: thinking, tool blocks with results, text.
    List<TurnBlock> blocks = new ArrayList<>();
    BlockAggregator aggregator = new BlockAggregator(blocks::add);
    listener.chunks.forEach(aggregator::accept);
    aggregator.complete();
    assertThat(blocks).extracting(TurnBlock::mode).containsExactly("thinking", "tool", "tool",
        "responding", "tool", "tool", "tool", "thinking", "responding");
    assertThat(blocks.get(1)).isInstanceOfSatisfying(TurnBlock.Tool.class,
        b -> assertThat(b.content().response()).isEqualTo("Greeting.java\n"));
  }

  @Test
  void theModelReceivesSystemPromptSessionContextPromptThenEachReplyAndResult() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().thinking("I should read it.").text("Reading.")
            .toolCall("read_file", "{\"path\":\"README.md\"}").build(),
        reply().text("It says Demo.").build());
    AgentLoop loop = AgentLoop.builder().llmClient(llm).build();
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    List<ChatMessage> context = List.of(
        new ChatMessage(t, Role.SYSTEM, "an old system prompt"),
        new ChatMessage(t, Role.USER, "earlier question"),
        ChatMessage.assistant(t, "earlier thought", "earlier answer"),
        new ChatMessage(t, Role.TOOL, "read_file {\"path\":\"x\"}\nearlier result"));
    AgentRequest request = AgentRequest.builder(repo.dir(), "m1", "What does the README say?")
        .projectName("Demo").mode("plan").context(context).think(true).build();

    AgentOutcome outcome = run(loop, request, new RecordingListener());

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    List<LlmRequest> requests = llm.requests();
    assertThat(requests).hasSize(2);
    LlmRequest first = requests.get(0);
    assertThat(first.model()).isEqualTo("m1");
    assertThat(first.think()).isTrue();
    assertThat(first.tools()).extracting(ToolDefinition::name).containsExactly(
        "read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "run_command",
        "update_plan");
    assertThat(first.messages()).extracting(LlmMessage::role)
        .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER, Role.USER);
    String system = first.messages().get(0).content();
    assertThat(system).contains("\"Demo\"", repo.dir().toRealPath().toString(), "Mode: plan")
        .contains("- read_file: ", "- run_command: ", "- edit_file: ")
        .doesNotContain("an old system prompt");
    assertThat(first.messages().get(1).content()).isEqualTo("earlier question");
    assertThat(first.messages().get(2).content())
        .isEqualTo("<thinking>earlier thought</thinking>\nearlier answer");
    assertThat(first.messages().get(3).content())
        .isEqualTo("[Tool result from an earlier turn]\nread_file {\"path\":\"x\"}\nearlier result");
    assertThat(first.messages().get(4).content()).isEqualTo("What does the README say?");

    List<LlmMessage> second = requests.get(1).messages();
    assertThat(second).hasSize(7);
    assertThat(second.subList(0, 5)).isEqualTo(first.messages());
    LlmMessage assistant = second.get(5);
    assertThat(assistant.role()).isEqualTo(Role.ASSISTANT);
    assertThat(assistant.content()).isEqualTo("Reading.");
    assertThat(assistant.thinking()).isEqualTo("I should read it."); // sent back (DeepSeek)
    assertThat(assistant.toolCalls()).singleElement()
        .satisfies(c -> assertThat(c.name()).isEqualTo("read_file"));
    LlmMessage result = second.get(6);
    assertThat(result.role()).isEqualTo(Role.TOOL);
    assertThat(result.toolCallId()).isEqualTo(assistant.toolCalls().get(0).id());
    assertThat(result.toolName()).isEqualTo("read_file");
    assertThat(result.content()).isEqualTo("# Demo\n");

    // What the turn adds to the session context, thinking merged as seed 002 says.
    assertThat(outcome.messages()).extracting(ChatMessage::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
    assertThat(outcome.messages().get(1).content())
        .isEqualTo("<thinking>I should read it.</thinking>\nReading.");
    assertThat(outcome.messages().get(2).content())
        .isEqualTo("read_file {\"path\":\"README.md\"}\n# Demo\n");
    assertThat(outcome.messages().get(3).content()).isEqualTo("It says Demo.");
  }

  @Test
  void ofWorkOrderTakesModelPromptModeContextAndParams() {
    dev.gadget.core.model.WorkOrder order = new dev.gadget.core.model.WorkOrder("w1",
        new dev.gadget.core.model.WorkOrder.ProjectRef("p1", "Demo", "demo", "/srv/demo.git"),
        new dev.gadget.core.model.ProviderConfig("ollama", "http://127.0.0.1:11434", "secret",
            "qwen3", new dev.gadget.core.model.ModelParams(0.2, null, 40)),
        new dev.gadget.core.model.WorkOrder.SessionRef("s1", "S",
            List.of(new ChatMessage(Instant.EPOCH, Role.USER, "hi"))),
        new dev.gadget.core.model.WorkOrder.TurnRef("t1", "plan", "Fix it"));
    AgentRequest r = AgentRequest.of(order, repo.dir());
    assertThat(r.model()).isEqualTo("qwen3");
    assertThat(r.prompt()).isEqualTo("Fix it");
    assertThat(r.mode()).isEqualTo("plan");
    assertThat(r.projectName()).isEqualTo("Demo");
    assertThat(r.params().topK()).isEqualTo(40);
    assertThat(r.context()).hasSize(1);
    assertThat(r.toString()).doesNotContain("secret");
  }

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
  void theRoundTripLimitEndsTheTurnWithAClearMessage() throws Exception {
    AtomicInteger n = new AtomicInteger();
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .script(req -> reply().toolCall("run_command",
            "{\"command\":\"echo " + n.incrementAndGet() + "\"}").build())
        .build();
    AgentLoop loop = AgentLoop.builder().llmClient(llm)
        .limits(AgentLimits.DEFAULTS.withMaxRoundTrips(3)).build();
    RecordingListener listener = new RecordingListener();

    AgentOutcome outcome = run(loop, request("Loop forever"), listener);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.LIMIT_HIT);
    assertThat(outcome.status().toTurnStatus()).isEqualTo(TurnStatus.ERROR);
    assertThat(outcome.message()).startsWith("Stopped: the model made 3 round trips")
        .contains("the limit").contains("send another prompt");
    assertThat(outcome.error()).isNull();
    assertThat(outcome.stats().llmCalls()).isEqualTo(3);
    assertThat(outcome.stats().toolCallCount()).isEqualTo(3);
    assertThat(llm.requests()).hasSize(3);
    assertThat(listener.events).last().isEqualTo("complete LIMIT_HIT");
  }

  @Test
  void theSameToolCallAgainAndAgainEndsTheTurnWithoutRunningItAgain() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("glob", "{\"pattern\":\"**/*.java\",\"path\":\".\"}").build(),
        reply().toolCall("glob", "{\"path\": \".\", \"pattern\": \"**/*.java\"}").build(),
        reply().toolCall("glob", "{\"pattern\":\"**/*.java\",\"path\":\".\"}").build(),
        reply().text("never reached").build());
    AgentLoop loop = AgentLoop.builder().llmClient(llm).build();

    AgentOutcome outcome = run(loop, request("Find java files"), new RecordingListener());

    assertThat(AgentLimits.DEFAULTS.repeatedToolCallLimit()).isEqualTo(3);
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.LIMIT_HIT);
    assertThat(outcome.message()).isEqualTo("Stopped: the model called glob with the same "
        + "arguments 3 times in a row, which looks like a loop (limit: 3). The work so far is "
        + "kept; send another prompt to go on.");
    assertThat(outcome.stats().toolCallCount()).isEqualTo(2);
    assertThat(llm.requests()).hasSize(3);
    assertThat(llm.remaining()).isEqualTo(1);
  }

  @Test
  void alternatingCallsAreNotALoop() throws Exception {
    List<ScriptedLlmClient.Reply> replies = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      replies.add(reply().toolCall("list_dir", "{\"path\":\".\"}").build());
      replies.add(reply().toolCall("read_file", "{\"path\":\"README.md\"}").build());
    }
    replies.add(reply().text("ok").build());
    ScriptedLlmClient llm = ScriptedLlmClient.of(replies.toArray(ScriptedLlmClient.Reply[]::new));

    AgentOutcome outcome = run(AgentLoop.builder().llmClient(llm).build(), request("look"),
        new RecordingListener());

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.stats().toolCallCount()).isEqualTo(6);
  }

  @Test
  void limitsAreValidated() {
    assertThat(AgentLimits.DEFAULTS).isEqualTo(new AgentLimits(50, 3, 32_000));
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> AgentLimits.DEFAULTS.withMaxRoundTrips(0));
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> AgentLimits.DEFAULTS.withRepeatedToolCallLimit(1));
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
  void theDefaultListenerAndACustomSystemPromptAndToolSetAreUsed() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(reply().text("hi").build());
    RecordingListener listener = new RecordingListener();
    AgentLoop loop = AgentLoop.builder().llmClient(llm).listener(listener)
        .tools(dev.gadget.core.agent.tools.CodingTools.readOnly())
        .systemPrompt((req, dir, tools) -> "custom for " + req.projectName() + " with "
            + tools.size() + " tools")
        .build();

    AgentOutcome outcome = loop.start(request("hello")).outcome().get(10, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(listener.completions).hasValue(1);
    assertThat(llm.requests().get(0).messages().get(0).content())
        .isEqualTo("custom for Demo with 5 tools");
    assertThat(llm.requests().get(0).tools()).extracting(ToolDefinition::name)
        .containsExactly("read_file", "list_dir", "glob", "grep", "update_plan");
  }

  @Test
  void twoToolsWithOneNameAreRefused() {
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> AgentLoop.builder().llmClient(ScriptedLlmClient.of())
            .tools(List.of(new dev.gadget.core.agent.tools.ReadFileTool(),
                new dev.gadget.core.agent.tools.ReadFileTool()))
            .build())
        .withMessageContaining("read_file");
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

  @Test
  void aResumedTurnSendsTheRoundsAlreadyExchangedAfterThePrompt() throws Exception {
    dev.gadget.core.llm.LlmToolCall earlier = new dev.gadget.core.llm.LlmToolCall("call_9",
        "read_file", dev.gadget.core.GadgetJson.mapper().readTree("{\"path\":\"README.md\"}"));
    List<LlmMessage> resume = List.of(
        LlmMessage.assistant("", "look first", List.of(earlier)),
        LlmMessage.tool(earlier, "# Demo\n"));
    ScriptedLlmClient llm = ScriptedLlmClient.of(reply().text("It says Demo.").build());
    AgentRequest request = AgentRequest.builder(repo.dir(), "m", "What does it say?")
        .resume(resume).build();

    AgentOutcome outcome = run(AgentLoop.builder().llmClient(llm).build(), request,
        new RecordingListener());

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    List<LlmMessage> sent = llm.requests().get(0).messages();
    assertThat(sent).extracting(LlmMessage::role)
        .containsExactly(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.TOOL);
    assertThat(sent.subList(2, 4)).isEqualTo(resume);
    assertThat(outcome.stats().toolCallCount()).isZero(); // nothing ran again
  }
}
