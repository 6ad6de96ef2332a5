package dev.gadget.micrometer;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.TestRepo;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.LlmUsage;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real {@link AgentLoop} turn on a real repository, observed through {@link GadgetMetrics}. */
class MeteredAgentTurnTest {
  @TempDir Path tmp;
  TestRepo repo;
  SimpleMeterRegistry registry = new SimpleMeterRegistry();
  GadgetMetrics metrics = GadgetMetrics.of(registry);

  @BeforeEach
  void setUp() throws Exception {
    repo = TestRepo.create(tmp, "README.md", "# Demo\n");
  }

  private AgentOutcome run(ScriptedLlmClient llm, String prompt) throws Exception {
    AgentLoop loop = AgentLoop.builder().llmClient(metrics.llmClient(llm, "scripted")).build();
    AgentRequest request = AgentRequest.builder(repo.dir(), "test-model", prompt).build();
    return loop.start(request, metrics.agentListener()).outcome().get(20, TimeUnit.SECONDS);
  }

  private Timer operation(String errorType) {
    return registry.find(GadgetMetrics.OPERATION_DURATION)
        .tag(GadgetMetrics.OPERATION_NAME, "chat")
        .tag(GadgetMetrics.PROVIDER_NAME, "scripted")
        .tag(GadgetMetrics.REQUEST_MODEL, "test-model")
        .tag(GadgetMetrics.ERROR_TYPE, errorType).timer();
  }

  private DistributionSummary tokens(String type) {
    return registry.find(GadgetMetrics.TOKEN_USAGE)
        .tag(GadgetMetrics.PROVIDER_NAME, "scripted")
        .tag(GadgetMetrics.TOKEN_TYPE, type).summary();
  }

  private Timer tool(String name, String outcome) {
    return registry.find(GadgetMetrics.TOOL_DURATION)
        .tag(GadgetMetrics.TOOL_NAME, name).tag(GadgetMetrics.TOOL_OUTCOME, outcome).timer();
  }

  @Test
  void aTurnWithToolCallsLeavesModelCallsTokensToolCallsAndTheTurn() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().text("Reading the file.")
            .toolCall("read_file", "{\"path\":\"README.md\"}")
            .toolCall("read_file", "{\"path\":\"MISSING.md\"}")
            .toolCall("list_dir", "{\"path\":\".\"}")
            .build(),
        reply().text("Done.").build());

    AgentOutcome outcome = run(llm, "Read the readme");

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(operation("none").count()).isEqualTo(2);
    assertThat(operation("none").totalTime(TimeUnit.NANOSECONDS)).isPositive();
    // The scripted client reports no input tokens and one output token per streamed word:
    // "Reading", " the", " file." then "Done.".
    assertThat(tokens("output").count()).isEqualTo(2);
    assertThat(tokens("output").totalAmount()).isEqualTo(4.0)
        .isEqualTo((double) outcome.stats().completionTokens());
    assertThat(tokens("input").count()).isEqualTo(2);
    assertThat(tokens("input").totalAmount()).isZero();
    assertThat(tool("read_file", "success").count()).isEqualTo(1);
    assertThat(tool("read_file", "error").count()).isEqualTo(1);
    assertThat(tool("list_dir", "success").count()).isEqualTo(1);
    assertThat(registry.find(GadgetMetrics.TOOL_DURATION).timers()).hasSize(3);
    assertThat(registry.find(GadgetMetrics.LLM_ERRORS).counters()).isEmpty();
    assertThat(registry.get(GadgetMetrics.AGENT_TURN_DURATION)
        .tag(GadgetMetrics.TURN_STATUS, "finished").timer().count()).isEqualTo(1);
  }

  @Test
  void promptCacheReadsAndWritesAreMeteredApartFromTheInputTheyArePartOf() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("list_dir", "{\"path\":\".\"}")
            .usage(LlmUsage.ofTokens(5000, 20, 0, 0, 4800)).build(),
        reply().text("Done.").usage(LlmUsage.ofTokens(5100, 10, 0, 4800, 290)).build());

    AgentOutcome outcome = run(llm, "List it");

    assertThat(outcome.stats().cacheReadTokens()).isEqualTo(4800);
    assertThat(outcome.stats().cacheWriteTokens()).isEqualTo(5090);
    assertThat(outcome.stats().promptTokens()).isEqualTo(10100);
    assertThat(tokens("input").totalAmount()).isEqualTo(10100.0);
    DistributionSummary read = registry.get(GadgetMetrics.CACHE_TOKEN_USAGE)
        .tag(GadgetMetrics.PROVIDER_NAME, "scripted").tag(GadgetMetrics.REQUEST_MODEL, "test-model")
        .tag(GadgetMetrics.TOKEN_TYPE, "cache_read").summary();
    DistributionSummary written = registry.get(GadgetMetrics.CACHE_TOKEN_USAGE)
        .tag(GadgetMetrics.TOKEN_TYPE, "cache_creation").summary();
    assertThat(read.count()).isEqualTo(2);
    assertThat(read.totalAmount()).isEqualTo(4800.0);
    assertThat(written.totalAmount()).isEqualTo(5090.0);
  }

  @Test
  void meteredToolsCountTheCallsThatReachATool() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("read_file", "{\"path\":\"README.md\"}")
            .toolCall("read_file", "{\"path\":\"MISSING.md\"}")
            .toolCall("no_such_tool", "{}")
            .build(),
        reply().text("Done.").build());
    AgentLoop loop = AgentLoop.builder().llmClient(llm)
        .tools(metrics.tools(CodingTools.all())).build();
    AgentRequest request = AgentRequest.builder(repo.dir(), "test-model", "read").build();

    AgentOutcome outcome = loop.start(request, new AgentListener() {}).outcome()
        .get(20, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.toolCalls().get(0).response()).isEqualTo("# Demo\n");
    assertThat(tool("read_file", "success").count()).isEqualTo(1);
    assertThat(tool("read_file", "error").count()).isEqualTo(1);
    assertThat(registry.find(GadgetMetrics.TOOL_DURATION).timers()).hasSize(2);
    assertThat(registry.find(GadgetMetrics.AGENT_TURN_DURATION).timers()).isEmpty();
  }

  @Test
  void failedModelCallsAreCountedByKind() throws Exception {
    AgentOutcome broken = run(ScriptedLlmClient.of(
        reply().text("Half an").fail("the stream broke").build()), "first");
    AgentOutcome empty = run(ScriptedLlmClient.of(), "second");

    assertThat(broken.status()).isEqualTo(AgentOutcome.Status.ERROR);
    assertThat(empty.status()).isEqualTo(AgentOutcome.Status.ERROR);
    assertThat(registry.get(GadgetMetrics.LLM_ERRORS).tag(GadgetMetrics.ERROR_TYPE, "stream")
        .counter().count()).isEqualTo(1.0);
    assertThat(registry.get(GadgetMetrics.LLM_ERRORS).tag(GadgetMetrics.ERROR_TYPE, "client")
        .counter().count()).isEqualTo(1.0);
    assertThat(operation("stream").count()).isEqualTo(1);
    assertThat(operation("client").count()).isEqualTo(1);
    assertThat(operation("none")).isNull();
    // What arrived before the stream broke still counts: "Half", " an".
    assertThat(tokens("output").totalAmount()).isEqualTo(2.0);
    assertThat(registry.get(GadgetMetrics.AGENT_TURN_DURATION)
        .tag(GadgetMetrics.TURN_STATUS, "error").timer().count()).isEqualTo(2);
  }

  @Test
  void theMeteredListenerPassesARunningCommandsOutputOn() throws Exception {
    StringBuilder output = new StringBuilder();
    AgentListener mine = new AgentListener() {
      @Override
      public void onToolOutput(dev.gadget.core.model.ToolCall call, String text) {
        synchronized (output) {
          output.append(text);
        }
      }
    };
    AgentLoop loop = AgentLoop.builder().llmClient(ScriptedLlmClient.of(
        reply().toolCall("run_command", "{\"command\":\"echo printed\"}").build(),
        reply().text("Done.").build())).build();
    AgentOutcome outcome = loop.start(AgentRequest.builder(repo.dir(), "m", "run").build(),
        metrics.agentListener(mine)).outcome().get(20, TimeUnit.SECONDS);
    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    synchronized (output) {
      assertThat(output.toString()).isEqualTo("printed\n");
    }
  }
}
