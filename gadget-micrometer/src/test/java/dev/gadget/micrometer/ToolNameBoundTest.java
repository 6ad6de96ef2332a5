package dev.gadget.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.model.ToolCall;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** A model that invents tool names cannot grow the number of series without bound. */
class ToolNameBoundTest {
  @Test
  void toolNamesPastTheBoundAreTaggedOther() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    GadgetMetrics metrics = GadgetMetrics.of(registry);
    AgentListener listener = metrics.agentListener(new AgentListener() {});
    int invented = GadgetMetrics.MAX_TOOL_NAMES + 50;
    for (int i = 0; i < invented; i++) {
      listener.onToolEnd(new ToolCall("c" + i, "made_up_" + i, "{}", "Error: unknown tool"),
          false, Duration.ofMillis(1));
    }
    // a name seen before the bound keeps its own series
    listener.onToolEnd(new ToolCall("again", "made_up_0", "{}", "ok"), true, Duration.ofMillis(1));

    Set<String> tags = registry.find(GadgetMetrics.TOOL_DURATION).timers().stream()
        .map(t -> t.getId().getTag(GadgetMetrics.TOOL_NAME)).collect(Collectors.toSet());
    assertThat(tags).hasSize(GadgetMetrics.MAX_TOOL_NAMES + 1).contains(GadgetMetrics.OTHER_TOOL);
    Timer other = registry.find(GadgetMetrics.TOOL_DURATION)
        .tag(GadgetMetrics.TOOL_NAME, GadgetMetrics.OTHER_TOOL).timer();
    assertThat(other.count()).isEqualTo(50);
    assertThat(registry.find(GadgetMetrics.TOOL_DURATION).tag(GadgetMetrics.TOOL_NAME, "made_up_0")
        .timers()).hasSize(2); // its error and its success
  }
}
