package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.ToolStep;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A turn's events told in seed 004's words, on literal events: what the runtime tests
 * (gadget-examples' {@code AgentFaceTest}, {@code AgentToolSynthesisTest}) cannot stage easily.
 */
class AgentTurnEventsTest {
  /** What a seed-004 client was sent: "event payload" per emit. */
  private final List<String> told = new ArrayList<>();

  private final Connection client = new Connection() {
    @Override
    public String id() {
      return "c";
    }

    @Override
    public String namespace() {
      return "/agent";
    }

    @Override
    public void emit(String event, List<JsonNode> args) {
      told.add(event + " " + args.get(0));
    }

    @Override
    public CompletableFuture<List<JsonNode>> emitWithAck(String event, List<JsonNode> args,
        Duration timeout) {
      emit(event, args);
      return CompletableFuture.completedFuture(List.of());
    }

    @Override
    public void on(String event, EventHandler handler) {}

    @Override
    public boolean isConnected() {
      return true;
    }

    @Override
    public void disconnect() {}
  };

  private AgentTurnEvents turn() {
    AgentTurnEvents events = new AgentTurnEvents(client, "go", "s", e -> {});
    events.start("t1");
    return events;
  }

  @Test
  void aCallReportedWithoutItsStartIsToldSkipped() {
    // a call a drone's crash interrupted: reported, never started in this stream
    turn().accept(Protocol.TOOL_CALL, new Payloads.ToolCallEvent("t1", 3, new ToolCall("c1",
        "run_command", "{}", "Error: interrupted: the drone stopped while it ran", true, null)));
    assertThat(told).containsExactly("agent_event {\"event_type\":\"execution_skipped\","
        + "\"data\":{\"reason\":\"Error: interrupted: the drone stopped while it ran\"}}");
  }

  @Test
  void aCompositeToolsStepsComeWithItsExecutionComplete() {
    AgentTurnEvents events = turn();
    events.accept(Protocol.TOOL_STARTED, new Payloads.ToolStarted("t1", 1, "c1", "both", "{}"));
    events.accept(Protocol.TOOL_CALL, new Payloads.ToolCallEvent("t1", 2, new ToolCall("c1",
        "both", "{}", "[composite tool both: uses upper count]\nexit code: 0\nok", false, 9L)
        .withSteps(List.of(new ToolStep("upper", 0, 4L), new ToolStep("count", null, null)))));
    assertThat(told).containsExactly(
        "agent_event {\"event_type\":\"executing\",\"data\":{\"tool_name\":\"both\"}}",
        "agent_event {\"event_type\":\"using_composite_tool\",\"data\":{\"tool_name\":\"both\","
            + "\"component_tools\":[\"upper\",\"count\"]}}",
        "agent_event {\"event_type\":\"execution_complete\",\"data\":{\"result\":\"[composite "
            + "tool both: uses upper count]\\nexit code: 0\\nok\",\"steps\":[{\"tool_name\":"
            + "\"upper\",\"success\":true,\"exit_code\":0,\"duration_ms\":4},{\"tool_name\":"
            + "\"count\",\"success\":false}]}}"); // a step that did not finish: no code
  }

  @Test
  void aDeniedCallIsToldSkippedAfterItsStart() {
    AgentTurnEvents events = turn();
    events.accept(Protocol.TOOL_STARTED, new Payloads.ToolStarted("t1", 1, "c1", "run_command",
        "{}"));
    events.accept(Protocol.TOOL_CALL, new Payloads.ToolCallEvent("t1", 2, new ToolCall("c1",
        "run_command", "{}", "Error: denied: not now. It did not run.", true, 0L,
        new dev.gadget.core.model.ToolApproval(
            dev.gadget.core.model.ToolApproval.Decision.DENIED, null, "ada", "not now"),
        List.of())));
    assertThat(told).containsExactly(
        "agent_event {\"event_type\":\"executing\",\"data\":{\"tool_name\":\"run_command\"}}",
        "agent_event {\"event_type\":\"execution_skipped\",\"data\":{\"reason\":\"Error: "
            + "denied: not now. It did not run.\"}}");
  }
}
