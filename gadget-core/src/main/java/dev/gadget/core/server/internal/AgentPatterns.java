package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.AgentTurnEvents.map;

import dev.gadget.core.agent.skills.ActivateSkillTool;
import dev.gadget.core.model.ToolCall;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * One turn's reuse of a saved workflow pattern in seed 004's words: an {@code activate_skill}
 * call that loaded a pattern ({@link ActivateSkillTool#pattern}) is {@code using_workflow_pattern}
 * and {@code pattern_execution_start}; each tool run after it a {@code pattern_step} and a
 * {@code pattern_step_complete}; the turn's end {@code pattern_execution_complete}. Not
 * thread-safe: called under {@link AgentTurnEvents}'s lock.
 */
final class AgentPatterns {
  private final BiConsumer<String, Map<String, Object>> events;
  private String pattern;
  private int total;
  private int step;

  AgentPatterns(BiConsumer<String, Map<String, Object>> events) {
    this.events = events;
  }

  /** An {@code activate_skill} call ended: a pattern's use begins when it loaded one. */
  void activated(ToolCall call) {
    List<String> p = call.failed() ? List.of() : ActivateSkillTool.pattern(call.response());
    if (p.isEmpty() || pattern != null) {
      return;
    }
    pattern = p.get(0);
    List<String> tools = p.subList(1, p.size());
    total = tools.size();
    events.accept("using_workflow_pattern", map("pattern_name", pattern, "tool_sequence",
        List.copyOf(tools)));
    events.accept("pattern_execution_start", map("pattern_name", pattern));
  }

  /** A tool started: a step of the pattern in use. */
  void toolStarted(String name) {
    if (pattern != null) {
      events.accept("pattern_step", map("step", ++step, "total", Math.max(total, step),
          "tool_name", name));
    }
  }

  /** A tool ended: its pattern step is complete. */
  void toolEnded(ToolCall call) {
    if (pattern != null) {
      events.accept("pattern_step_complete", map("tool_name", call.name(), "result",
          call.response() == null ? "" : call.response()));
    }
  }

  /** The turn ended: the pattern's use too. */
  void turnEnded() {
    if (pattern != null) {
      events.accept("pattern_execution_complete", map("pattern_name", pattern));
      pattern = null;
    }
  }
}
