package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loop's approval step with {@link ScriptedLlmClient} and real commands. */
class ApprovalLoopTest {
  @TempDir Path tmp;
  TestRepo repo;
  final List<ApprovalRequest> asked = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    repo = TestRepo.create(tmp, "README.md", "# Demo\n");
  }

  private static ScriptedLlmClient appendTwiceThenReadAndStop() {
    return ScriptedLlmClient.of(
        reply().toolCall("run_command", "{\"command\":\"echo ran >> log.txt\"}").build(),
        reply().toolCall("run_command", "{\"command\":\"echo ran >> log.txt\"}")
            .toolCall("read_file", "{\"path\":\"README.md\"}").build(),
        reply().text("Done.").build());
  }

  private AgentOutcome run(ScriptedLlmClient llm, ApprovalPolicy policy, ToolApprover approver)
      throws Exception {
    AgentLoop loop = AgentLoop.builder().llmClient(llm).approvals(policy, r -> {
      asked.add(r);
      return approver.review(r);
    }).build();
    return loop.start(AgentRequest.builder(repo.dir(), "m", "go").build(),
        new AgentListener() {}).outcome().get(20, TimeUnit.SECONDS);
  }

  private List<String> log() throws Exception {
    Path log = repo.dir().resolve("log.txt");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  @Test
  void deniedCallsNeverRunAndTheModelIsToldWhy() throws Exception {
    ScriptedLlmClient llm = appendTwiceThenReadAndStop();
    AgentOutcome outcome = run(llm, ApprovalPolicy.COMMANDS, r -> CompletableFuture
        .completedFuture(ToolApproval.deny("ada", "no writes today")));
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(log()).isEmpty();
    assertThat(asked).extracting(ApprovalRequest::toolName)
        .containsExactly("run_command", "run_command"); // read_file does not wait
    assertThat(asked.get(0).command()).isEqualTo("echo ran >> log.txt");
    List<LlmMessage> second = llm.requests().get(1).messages();
    assertThat(second.get(second.size() - 1).content())
        .isEqualTo("Error: denied: no writes today. It did not run.");
    ToolCall first = outcome.toolCalls().get(0);
    assertThat(first.approval()).isEqualTo(ToolApproval.deny("ada", "no writes today"));
    assertThat(outcome.toolCalls().get(2).approval()).isNull();
  }

  @Test
  void approvedCallsRunOnceEach() throws Exception {
    AgentOutcome outcome = run(appendTwiceThenReadAndStop(), ApprovalPolicy.COMMANDS_AND_WRITES,
        r -> CompletableFuture.completedFuture(ToolApproval.approve("ada")));
    assertThat(log()).containsExactly("ran", "ran");
    assertThat(asked).hasSize(2);
    assertThat(outcome.toolCalls()).extracting(ToolCall::approval)
        .containsExactly(ToolApproval.approve("ada"), ToolApproval.approve("ada"), null);
  }

  @Test
  void approvedForTheSessionCoversLaterCallsOfTheToolOrPrefix() throws Exception {
    AgentOutcome byTool = run(appendTwiceThenReadAndStop(), ApprovalPolicy.EVERYTHING,
        r -> CompletableFuture.completedFuture(ToolApproval.approveForSession("ada", null)));
    // run_command once, read_file once: the second run_command was covered.
    assertThat(asked).extracting(ApprovalRequest::toolName)
        .containsExactly("run_command", "read_file");
    assertThat(byTool.toolCalls().get(1).approval().decidedBy()).isEqualTo(ToolApproval.SESSION);
    assertThat(log()).containsExactly("ran", "ran");

    asked.clear();
    ScriptedLlmClient prefixes = ScriptedLlmClient.of(
        reply().toolCall("run_command", "{\"command\":\"echo one >> log.txt\"}").build(),
        reply().toolCall("run_command", "{\"command\":\"echo two\"}").build(),
        reply().toolCall("run_command", "{\"command\":\"echo three; echo four\"}").build(),
        reply().toolCall("run_command", "{\"command\":\"true\"}").build(),
        reply().text("Done.").build());
    run(prefixes, ApprovalPolicy.COMMANDS, r -> CompletableFuture.completedFuture(
        ToolApproval.approveForSession("ada", "echo ")));
    // "echo two" is covered; "echo three; echo four" has an operator, "true" another prefix.
    assertThat(asked).extracting(ApprovalRequest::command)
        .containsExactly("echo one >> log.txt", "echo three; echo four", "true");
  }

  @Test
  void theWaitBlocksWithoutSpinningAndACancelEndsIt() throws Exception {
    AtomicReference<Thread> loopThread = new AtomicReference<>();
    CompletableFuture<ToolApproval> never = new CompletableFuture<>();
    AgentLoop loop = AgentLoop.builder().llmClient(appendTwiceThenReadAndStop())
        .approvals(ApprovalPolicy.COMMANDS, r -> {
          loopThread.set(Thread.currentThread());
          return never;
        }).build();
    AgentRun run = loop.start(AgentRequest.builder(repo.dir(), "m", "go").build(),
        new AgentListener() {});
    TestRepo.await("the run to wait", 20, () -> loopThread.get() != null
        && loopThread.get().getState() == Thread.State.TIMED_WAITING);
    run.cancel();
    AgentOutcome outcome = run.outcome().get(20, TimeUnit.SECONDS);
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.CANCELLED);
    TestRepo.await("the approver's stage cancelled", 20, never::isCancelled);
    TestRepo.await("the loop's thread free", 20, () ->
        loopThread.get().getState() != Thread.State.TIMED_WAITING || !loopThread.get().isAlive());
    assertThat(log()).isEmpty();
  }

  @Test
  void anUnansweredCallIsDeniedAfterTheTimeout() throws Exception {
    ScriptedLlmClient llm = appendTwiceThenReadAndStop();
    AgentLoop loop = AgentLoop.builder().llmClient(llm)
        .approvals(ApprovalPolicy.COMMANDS, r -> new CompletableFuture<>())
        .approvalTimeout(Duration.ofSeconds(1)).build();
    AgentOutcome outcome = loop.start(AgentRequest.builder(repo.dir(), "m", "go").build(),
        new AgentListener() {}).outcome().get(20, TimeUnit.SECONDS);
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(log()).isEmpty();
    assertThat(outcome.toolCalls().get(0).approval())
        .isEqualTo(ToolApproval.deny(ToolApproval.TIMEOUT, "nobody answered within 1 s"));
  }

  @Test
  void anApproverThatFailsDeniesTheCall() throws Exception {
    AgentOutcome outcome = run(appendTwiceThenReadAndStop(), ApprovalPolicy.COMMANDS, r -> {
      throw new IllegalStateException("boom");
    });
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(log()).isEmpty();
    assertThat(outcome.toolCalls().get(0).approval().decision())
        .isEqualTo(ToolApproval.Decision.DENIED);
  }

  @Test
  void aSynthesizedToolRunsCodeSoItWaitsWheneverCommandsDo() throws Exception {
    Path folder = Files.createDirectories(repo.dir().resolve(".agents/tools/mark_it"));
    Files.writeString(folder.resolve("tool.json"), "{\"name\":\"mark_it\",\"description\":"
        + "\"Mark.\",\"parameters\":{\"type\":\"object\"},\"language\":\"sh\",\"tests\":"
        + "[{\"arguments\":{},\"expect\":\"ran\"}]}");
    Files.writeString(folder.resolve("run.sh"), "echo ran >> log.txt; echo ran\n");
    List<Tool> tools = new java.util.ArrayList<>(dev.gadget.core.agent.tools.CodingTools.all());
    tools.addAll(dev.gadget.core.agent.synth.SynthesizedTools.load(repo.dir(), "p",
        new dev.gadget.core.agent.synth.ToolRegistry(null, 3), java.util.Set.of(), p -> { }));
    for (ApprovalPolicy policy : List.of(ApprovalPolicy.COMMANDS, ApprovalPolicy.NEVER)) {
      asked.clear();
      AgentLoop loop = AgentLoop.builder().tools(tools).llmClient(ScriptedLlmClient.of(
          reply().toolCall("mark_it", "{}").build(), reply().text("Done.").build()))
          .approvals(policy, r -> {
            asked.add(r);
            return CompletableFuture.completedFuture(ToolApproval.deny("ada", "not now"));
          }).build();
      loop.start(AgentRequest.builder(repo.dir(), "m", "go").build(), new AgentListener() {})
          .outcome().get(20, TimeUnit.SECONDS);
      if (policy == ApprovalPolicy.COMMANDS) {
        assertThat(asked).extracting(ApprovalRequest::toolName).containsExactly("mark_it");
        assertThat(log()).isEmpty();
      } else {
        assertThat(asked).isEmpty();
        assertThat(log()).containsExactly("ran");
      }
    }
  }

  @Test
  void policiesSayWhichToolsWait() {
    assertThat(ApprovalPolicy.NEVER.asksFor("run_command")).isFalse();
    assertThat(ApprovalPolicy.COMMANDS.asksFor("run_command")).isTrue();
    assertThat(ApprovalPolicy.COMMANDS.asksFor("write_file")).isFalse();
    assertThat(ApprovalPolicy.COMMANDS_AND_WRITES.asksFor("edit_file")).isTrue();
    assertThat(ApprovalPolicy.COMMANDS.asksFor("create_tool")).isTrue(); // it runs tests
    assertThat(ApprovalPolicy.COMMANDS_AND_WRITES.asksFor("create_tool")).isTrue();
    assertThat(ApprovalPolicy.COMMANDS_AND_WRITES.asksFor("read_file")).isFalse();
    assertThat(ApprovalPolicy.EVERYTHING.asksFor("my_mcp_tool")).isTrue();
    assertThat(ApprovalPolicy.fromWireName("commands-and-writes"))
        .isEqualTo(ApprovalPolicy.COMMANDS_AND_WRITES);
    assertThatIllegalArgumentException().isThrownBy(() -> ApprovalPolicy.fromWireName("x"))
        .withMessage("no approval policy \"x\"; the policies are never, commands, "
            + "commands-and-writes and everything");
  }
}
