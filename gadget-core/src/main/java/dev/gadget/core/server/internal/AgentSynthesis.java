package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.AgentTurnEvents.map;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.synth.CreateToolTool;
import dev.gadget.core.agent.synth.SynthesizedTool;
import dev.gadget.core.model.ToolCall;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * One turn's tool synthesis in seed 004's words, from its {@code create_tool} calls as the drone
 * streamed them: {@code entering_synthesis_mode} and the first {@code synthesis_step} when a call
 * starts; the other steps, then {@code synthesis_successful} or {@code synthesis_failed}, from its
 * result ({@link CreateToolTool#read}); and {@code tool_experimental_warning} for each run of a
 * tool still experimental ({@link SynthesizedTool#flag}). Not thread-safe: called under
 * {@link AgentTurnEvents}'s lock.
 */
final class AgentSynthesis {
  private final BiConsumer<String, Map<String, Object>> events;
  private boolean synthesized;

  AgentSynthesis(BiConsumer<String, Map<String, Object>> events) {
    this.events = events;
  }

  /** Whether a tool was registered in this turn ({@code metadata.synthesized}). */
  boolean synthesized() {
    return synthesized;
  }

  /** A {@code create_tool} call started with {@code args}. */
  void started(String args) {
    String name;
    try {
      name = GadgetJson.mapper().readTree(args == null ? "{}" : args).path("name").asText("");
    } catch (java.io.IOException e) {
      name = "";
    }
    events.accept("entering_synthesis_mode", map("reason", "no tool fits: the model writes "
        + (name.isBlank() ? "a new tool" : "the tool " + name)));
    events.accept("synthesis_step", map("step", CreateToolTool.STEPS.get(0),
        "status", "in_progress"));
  }

  /**
   * A {@code create_tool} call ended ({@code toldStart}: its start was told): the steps it went
   * through, then its outcome. Returns whether the tool was registered.
   */
  boolean ended(ToolCall call, boolean toldStart) {
    if (!toldStart) {
      started(call.parameters());
    }
    CreateToolTool.Outcome o = CreateToolTool.read(call.response());
    for (String step : CreateToolTool.STEPS) {
      if (!step.equals(CreateToolTool.STEPS.get(0))) {
        events.accept("synthesis_step", map("step", step, "status", "in_progress"));
      }
      boolean failedHere = !o.registered() && step.equals(o.failedStep());
      events.accept("synthesis_step", map("step", step, "status",
          failedHere ? "failed" : "complete"));
      if (failedHere) {
        break;
      }
    }
    if (o.registered()) {
      synthesized = true;
      events.accept("synthesis_successful", map("tool_name", o.toolName(),
          "tests_verified", true));
    } else {
      events.accept("synthesis_failed", map("step", o.failedStep(), "error",
          o.error() == null ? "" : o.error()));
    }
    return o.registered();
  }

  /**
   * {@code data} with a composite tool's inner steps as {@code steps} ({@code [{tool_name,
   * success, exit_code, duration_ms}]}, {@code exit_code} and {@code duration_ms} left out (the
   * wire drops nulls) when the step did not finish), when {@code call} has any.
   */
  static java.util.Map<String, Object> withSteps(java.util.Map<String, Object> data,
      ToolCall call) {
    if (!call.steps().isEmpty()) {
      java.util.List<Object> steps = new java.util.ArrayList<>();
      for (dev.gadget.core.model.ToolStep s : call.steps()) {
        steps.add(map("tool_name", s.name(), "success", s.succeeded(), "exit_code",
            s.exitCode(), "duration_ms", s.durationMs()));
      }
      data.put("steps", steps);
    }
    return data;
  }

  /**
   * A tool's result: {@code using_composite_tool} when a composite tool's, and
   * {@code tool_experimental_warning} when it flags an experimental tool.
   */
  void ran(ToolCall call) {
    java.util.List<String> composite = SynthesizedTool.composite(call.response());
    if (!composite.isEmpty() && composite.get(0).equals(call.name())) {
      events.accept("using_composite_tool", map("tool_name", call.name(), "component_tools",
          java.util.List.copyOf(composite.subList(1, composite.size()))));
    }
    String[] flag = SynthesizedTool.flag(call.response());
    if (flag != null && flag[0].equals(call.name())) {
      events.accept("tool_experimental_warning", map("tool_name", flag[0], "reason",
          "experimental: " + flag[1]));
    }
  }
}
