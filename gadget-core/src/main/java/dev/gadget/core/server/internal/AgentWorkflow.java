package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.AgentTurnEvents.map;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * One turn's plan ({@code update_plan}) in seed 004's workflow words: {@code planning_query},
 * {@code plan_complete}, {@code multi_tool_workflow}, {@code workflow_start}; per step
 * {@code workflow_step}, its tools as {@code workflow_step_tool_found} then
 * {@code workflow_step_executing}, and {@code workflow_step_complete} with what the step produced
 * (its last tool's result, else the text the model wrote during it) or {@code workflow_step_failed}
 * when its last tool failed; {@code workflow_complete} when every step is done. Not thread-safe:
 * {@link AgentTurnEvents} calls it under its own lock.
 */
final class AgentWorkflow {
  /** The most characters of a step's text kept as its result. */
  static final int MAX_STEP_TEXT = 10_000;

  private final String prompt;
  private final BiConsumer<String, Map<String, Object>> events;
  private final List<String> toolSequence = new ArrayList<>();
  private final Map<String, Integer> stepOfCall = new HashMap<>();
  private final Map<Integer, Outcome> outcomes = new HashMap<>();
  private List<String[]> plan;
  private boolean complete;

  /** What a step produced so far. */
  private static final class Outcome {
    final StringBuilder text = new StringBuilder();
    String toolResult;
    boolean failed;
    boolean retryAfterSynthesis;
    String retryReason;
  }

  /** The workflow of the turn of {@code prompt}, told to {@code events} (type, data). */
  AgentWorkflow(String prompt, BiConsumer<String, Map<String, Object>> events) {
    this.prompt = prompt;
    this.events = events;
  }

  /** The tools run so far (plan and search aside), in order. */
  List<String> toolSequence() {
    return List.copyOf(toolSequence);
  }

  /** The step now in progress (0-based), or -1: no plan, or no step in progress. */
  private int current() {
    if (plan == null) {
      return -1;
    }
    for (int i = 0; i < plan.size(); i++) {
      if (plan.get(i)[1].equals("in_progress")) {
        return i;
      }
    }
    return -1;
  }

  /**
   * A tool started: inside a step it is told as {@code workflow_step_tool_found} (with
   * {@code similarity}) then {@code workflow_step_executing}, and true is returned; outside
   * one, false (the caller tells it as a plain tool).
   */
  boolean toolStarted(String callId, String name, double similarity) {
    int step = current();
    if (step < 0) {
      return false;
    }
    stepOfCall.put(callId, step);
    Outcome o = outcomes.get(step);
    if (o != null && o.retryAfterSynthesis && o.retryReason != null) {
      o.retryAfterSynthesis = false;
      events.accept("workflow_retry", map("reason", o.retryReason, "step", step + 1));
    }
    events.accept("workflow_step_tool_found", map("tool_name", name, "similarity", similarity,
        "step", step + 1));
    events.accept("workflow_step_executing", map("tool_name", name, "step", step + 1));
    return true;
  }

  /**
   * A {@code create_tool} call started: inside a step, {@code workflow_step_needs_synthesis},
   * {@code workflow_needs_synthesis} when the step's last tool failed, and
   * {@code workflow_step_synthesizing}.
   */
  void synthesisStarted(String callId) {
    int step = current();
    if (step < 0) {
      return;
    }
    stepOfCall.put(callId, step);
    events.accept("workflow_step_needs_synthesis", map("step", step + 1));
    Outcome o = outcomes.get(step);
    if (o != null && o.failed) {
      events.accept("workflow_needs_synthesis", map("step_failed", step + 1));
      o.retryAfterSynthesis = true;
    }
    events.accept("workflow_step_synthesizing", map("step", step + 1, "task",
        plan.get(step)[0]));
  }

  /**
   * A {@code create_tool} call ended: when it registered {@code toolName} in a step that had
   * failed, the step's next tool is a {@code workflow_retry}.
   */
  void synthesisEnded(boolean registered, String toolName) {
    int step = current();
    Outcome o = step < 0 ? null : outcomes.get(step);
    if (o != null && o.retryAfterSynthesis) {
      o.retryAfterSynthesis = registered;
      o.retryReason = "New tool " + toolName + " synthesized successfully";
    }
  }

  /**
   * A tool's result: kept as its step's outcome when it started inside a step (true returned:
   * the step's end tells it), else false.
   */
  boolean toolEnded(String callId, String name, String result, boolean failed) {
    toolSequence.add(name);
    Integer step = stepOfCall.remove(callId);
    if (step == null) {
      return false;
    }
    Outcome o = outcomes.computeIfAbsent(step, s -> new Outcome());
    o.toolResult = result == null ? "" : result;
    o.failed = failed;
    return true;
  }

  /** The model's reply text: part of what the step in progress produced. */
  void text(String data) {
    int step = current();
    if (step < 0) {
      return;
    }
    StringBuilder sb = outcomes.computeIfAbsent(step, s -> new Outcome()).text;
    sb.append(data, 0, Math.min(data.length(), Math.max(0, MAX_STEP_TEXT - sb.length())));
  }

  /** An {@code update_plan} call's arguments: the plan's first writing, or the steps that moved. */
  void planned(JsonNode args) {
    List<String[]> steps = new ArrayList<>();
    for (JsonNode s : args.path("plan")) {
      steps.add(new String[] {s.path("step").asText(""), s.path("status").asText("")});
    }
    if (steps.isEmpty()) {
      return;
    }
    if (plan == null) {
      events.accept("planning_query", map("query", prompt));
      events.accept("plan_complete", map("strategy", steps.size() > 1 ? "sequential"
          : "single", "reasoning", args.path("explanation").asText("")));
      if (steps.size() > 1) {
        events.accept("multi_tool_workflow", map("num_tasks", steps.size()));
      }
      events.accept("workflow_start", map("total_steps", steps.size(), "tasks",
          steps.stream().map(s -> s[0]).toList()));
      plan = List.of();
    }
    for (int i = 0; i < steps.size(); i++) {
      String was = i < plan.size() ? plan.get(i)[1] : "pending";
      String now = steps.get(i)[1];
      boolean startsNow = !was.equals("in_progress") && !was.equals("completed")
          && (now.equals("in_progress") || now.equals("completed"));
      if (startsNow) {
        events.accept("workflow_step", map("step", i + 1, "total", steps.size(),
            "task", steps.get(i)[0]));
      }
      if (now.equals("completed") && !was.equals("completed")) {
        stepEnded(i);
      }
    }
    plan = steps;
    if (!complete && steps.stream().allMatch(s -> s[1].equals("completed"))) {
      complete = true;
      events.accept("workflow_complete", map("total_steps", steps.size(),
          "tool_sequence", toolSequence()));
    }
  }

  /** Step {@code i} (0-based) is done: complete with what it produced, or failed. */
  private void stepEnded(int i) {
    Outcome o = outcomes.remove(i);
    if (o != null && o.failed) {
      events.accept("workflow_step_failed", map("error", o.toolResult, "step", i + 1));
    } else {
      String result = o == null ? "" : o.toolResult != null ? o.toolResult : o.text.toString();
      events.accept("workflow_step_complete", map("result", result, "step", i + 1));
    }
  }

  /**
   * The turn ended: a step still in progress ends too, {@code workflow_step_failed} with
   * {@code error} when the turn did not finish, else as its tools went.
   */
  void turnEnded(boolean finished, String error) {
    int step = current();
    if (step < 0) {
      return;
    }
    if (finished) {
      stepEnded(step);
    } else {
      outcomes.remove(step);
      events.accept("workflow_step_failed", map("error", error, "step", step + 1));
    }
  }
}
