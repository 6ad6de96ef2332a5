package dev.gadget.core.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.ToolCall;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link AgentSynthesis}: seed 004's synthesis events read from literal tool calls. */
class AgentSynthesisTest {
  final List<String> told = new ArrayList<>();
  final AgentSynthesis synthesis = new AgentSynthesis((type, data) -> told.add(type + " "
      + data));

  @Test
  void aCompositeExperimentalToolsRunIsToldAsSuch() {
    synthesis.ran(new ToolCall("c1", "upper_twice", "{}", "[experimental tool upper_twice: it "
        + "had run successfully in 1 of 3 turns before this run]\n[composite tool upper_twice: "
        + "uses upper lower]\nexit code: 0\nOK", false, 5L));
    assertThat(told).containsExactly(
        "using_composite_tool {tool_name=upper_twice, component_tools=[upper, lower]}",
        "tool_experimental_warning {tool_name=upper_twice, reason=experimental: it had run "
            + "successfully in 1 of 3 turns before this run}");
    told.clear();
    // another tool that prints such a line is not taken for one
    synthesis.ran(new ToolCall("c2", "run_command", "{}", "[composite tool x: uses y]", false,
        1L));
    assertThat(told).isEmpty();
  }

  @Test
  void aCreateToolCallIsToldStepByStepUpToWhatFailed() {
    synthesis.started("{\"name\":\"word_count\"}");
    assertThat(synthesis.ended(new ToolCall("c1", "create_tool", "{}", "Error: Tool word_count "
        + "is not registered: tests failed: give 1 to 20 test cases; got 0\nNothing was written.",
        true, 1L), true)).isFalse();
    assertThat(told).containsExactly(
        "entering_synthesis_mode {reason=no tool fits: the model writes the tool word_count}",
        "synthesis_step {step=specification, status=in_progress}",
        "synthesis_step {step=specification, status=complete}",
        "synthesis_step {step=tests, status=in_progress}",
        "synthesis_step {step=tests, status=failed}",
        "synthesis_failed {step=tests, error=give 1 to 20 test cases; got 0}");
    assertThat(synthesis.synthesized()).isFalse();
  }
}
