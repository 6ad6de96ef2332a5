package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The loop driven by {@link ScriptedLlmClient} on a real git repository. */
class AgentLoopTest extends AgentLoopFixture {
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
