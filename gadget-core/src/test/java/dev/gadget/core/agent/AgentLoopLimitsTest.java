package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.TurnStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The loop's limits: round trips, a repeated tool call, and their validation. */
class AgentLoopLimitsTest extends AgentLoopFixture {
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
}
