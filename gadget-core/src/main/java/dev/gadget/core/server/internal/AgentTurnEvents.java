package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.catalog.ToolMatch;
import dev.gadget.core.agent.catalog.ToolSearch;
import dev.gadget.core.agent.tools.PlanTool;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One seed-004 query's turn told in seed 004's words: the turn's events (as its session's
 * watchers get them) become {@code agent_event}s (the plan's, the tools', the response's),
 * then {@code query_complete}; {@code onEnd} sends the rest. Events that come before the turn's
 * id is known are kept (at most {@link #MAX_EARLY}) and those of another turn dropped.
 * Thread-safe; called under the session's lock, so events come one at a time, in order.
 */
final class AgentTurnEvents implements BiConsumer<String, Object> {
  /** The most events kept while the turn's id is not known yet. */
  static final int MAX_EARLY = 10_000;

  private final Connection client;
  private final String prompt;
  private final String sessionId;
  private final Consumer<AgentTurnEvents> onEnd;
  private final List<Object[]> early = new ArrayList<>();
  private final Set<String> started = new HashSet<>();
  private final List<String> toolSequence = new ArrayList<>();
  private String turnId;
  private boolean ended;
  private List<String[]> plan;
  private boolean workflowComplete;
  private boolean afterTool;
  private boolean synthesized;
  private String lastToolName;
  private String lastToolResult;

  /**
   * Tells {@code client} about the turn of {@code prompt}, naming the session
   * {@code sessionId} as the client does; {@code onEnd} runs once after {@code query_complete}.
   */
  AgentTurnEvents(Connection client, String prompt, String sessionId,
      Consumer<AgentTurnEvents> onEnd) {
    this.client = client;
    this.prompt = prompt;
    this.sessionId = sessionId;
    this.onEnd = onEnd;
  }

  /** The session as the client names it. */
  String sessionId() {
    return sessionId;
  }

  /** The turn is {@code id}: what came before it is told now, the rest as it comes. */
  synchronized void start(String id) {
    turnId = id;
    for (Object[] e : early) {
      accept((String) e[0], e[1]);
    }
    early.clear();
  }

  @Override
  public synchronized void accept(String event, Object payload) {
    if (ended) {
      return;
    }
    if (turnId == null) {
      if (early.size() < MAX_EARLY) {
        early.add(new Object[] {event, payload});
      }
      return;
    }
    if (payload instanceof Payloads.TextEvent e && e.turnId().equals(turnId)
        && Protocol.RESPONSE.equals(event)) {
      if (afterTool) {
        synthesizing();
      }
    } else if (payload instanceof Payloads.ToolStarted e && e.turnId().equals(turnId)) {
      if (ToolSearch.NAME.equals(e.name())) {
        started.add(e.callId());
        agentEvent("searching", map("query", query(e.args())));
      } else if (!PlanTool.NAME.equals(e.name())) {
        started.add(e.callId());
        agentEvent("executing", map("tool_name", e.name()));
      }
    } else if (payload instanceof Payloads.ToolCallEvent e && e.turnId().equals(turnId)) {
      toolRan(e.call());
    } else if (payload instanceof Payloads.WorkOrderComplete e && e.turnId().equals(turnId)) {
      end(e);
    }
  }

  private void toolRan(ToolCall call) {
    if (ToolSearch.NAME.equals(call.name())) {
      searched(call);
      return;
    }
    if (PlanTool.NAME.equals(call.name())) {
      if (!call.failed()) {
        planned(call);
      }
      return;
    }
    toolSequence.add(call.name());
    lastToolName = call.name();
    lastToolResult = call.response();
    afterTool = true;
    if (!started.contains(call.callId())) {
      // told without a start: a call a drone's crash interrupted, not run again
      agentEvent("execution_skipped", map("reason", call.response()));
    } else if (call.failed()) {
      agentEvent("execution_failed", map("error", call.response()));
    } else {
      agentEvent("execution_complete", map("result", call.response()));
    }
  }

  /**
   * A {@code search_tools} call: {@code searching} when it was not told at its start, then
   * {@code tool_found} for each tool it found and loaded, {@code tool_mismatch} for the best of
   * matches all under the drone's threshold, or {@code no_tool_found}.
   */
  private void searched(ToolCall call) {
    String query = query(call.parameters());
    if (!started.contains(call.callId())) {
      agentEvent("searching", map("query", query));
    }
    ToolSearch.Result result = call.failed() ? null : ToolSearch.read(call.response());
    if (result == null || result.matches().isEmpty()) {
      agentEvent("no_tool_found", map("query", query));
    } else if (result.outcome() == ToolSearch.Outcome.MISMATCH) {
      ToolMatch best = result.matches().get(0);
      agentEvent("tool_mismatch", map("tool_name", best.name(), "similarity",
          best.similarity(), "reason", result.reason()));
    } else {
      for (ToolMatch m : result.matches()) {
        agentEvent("tool_found", map("tool_name", m.name(), "similarity", m.similarity()));
      }
    }
  }

  /** The {@code query} of a {@code search_tools} call's arguments, or {@code ""}. */
  private static String query(String args) {
    try {
      return GadgetJson.mapper().readTree(args == null ? "{}" : args).path("query").asText("");
    } catch (java.io.IOException e) {
      return "";
    }
  }

  private void synthesizing() {
    afterTool = false;
    synthesized = true;
    agentEvent("synthesizing_response", map("tool_result",
        lastToolResult == null ? "" : lastToolResult));
  }

  /** An {@code update_plan} call: the plan's first writing, or the steps that moved. */
  private void planned(ToolCall call) {
    JsonNode args;
    try {
      args = GadgetJson.mapper().readTree(call.parameters());
    } catch (java.io.IOException e) {
      return;
    }
    List<String[]> steps = new ArrayList<>();
    for (JsonNode s : args.path("plan")) {
      steps.add(new String[] {s.path("step").asText(""), s.path("status").asText("")});
    }
    if (steps.isEmpty()) {
      return;
    }
    List<String> tasks = steps.stream().map(s -> s[0]).toList();
    if (plan == null) {
      agentEvent("planning_query", map("query", prompt));
      agentEvent("plan_complete", map("strategy", steps.size() > 1 ? "sequential" : "single",
          "reasoning", args.path("explanation").asText("")));
      if (steps.size() > 1) {
        agentEvent("multi_tool_workflow", map("num_tasks", steps.size()));
      }
      agentEvent("workflow_start", map("total_steps", steps.size(), "tasks", tasks));
      plan = List.of();
    }
    for (int i = 0; i < steps.size(); i++) {
      String was = i < plan.size() ? plan.get(i)[1] : "pending";
      String now = steps.get(i)[1];
      boolean startsNow = !was.equals("in_progress") && !was.equals("completed")
          && (now.equals("in_progress") || now.equals("completed"));
      if (startsNow) {
        agentEvent("workflow_step", map("step", i + 1, "total", steps.size(),
            "task", steps.get(i)[0]));
      }
      if (now.equals("completed") && !was.equals("completed")) {
        agentEvent("workflow_step_complete", map("result", steps.get(i)[0], "step", i + 1));
      }
    }
    plan = steps;
    if (!workflowComplete && steps.stream().allMatch(s -> s[1].equals("completed"))) {
      workflowComplete = true;
      agentEvent("workflow_complete", map("total_steps", steps.size(),
          "tool_sequence", List.copyOf(toolSequence)));
    }
  }

  private void end(Payloads.WorkOrderComplete e) {
    ended = true;
    boolean success = e.status() == TurnStatus.FINISHED;
    String text = e.text() == null ? "" : e.text();
    String error = e.error() != null ? e.error()
        : "the turn ended " + e.status().name().toLowerCase(java.util.Locale.ROOT);
    if (success) {
      if (afterTool || !synthesized) {
        synthesizing();
      }
      agentEvent("complete", map("response", text));
    } else if (plan != null) {
      for (int i = 0; i < plan.size(); i++) {
        if (plan.get(i)[1].equals("in_progress")) {
          agentEvent("workflow_step_failed", map("error", error, "step", i + 1));
        }
      }
    }
    Map<String, Object> metadata = map("tool_name", lastToolName, "synthesized", false,
        "tool_result", lastToolResult, "turn_id", turnId,
        "status", e.status().name().toLowerCase(java.util.Locale.ROOT));
    emit(Protocol.QUERY_COMPLETE, map("success", success, "response", success ? text : error,
        "metadata", metadata, "session_id", sessionId));
    onEnd.accept(this);
  }

  private void agentEvent(String type, Map<String, Object> data) {
    emit(Protocol.AGENT_EVENT, map("event_type", type, "data", data));
  }

  private void emit(String event, Object payload) {
    client.emit(event, Protocol.args(payload));
  }

  /** An ordered map of key, value pairs; {@code null} values are kept (written as null). */
  static Map<String, Object> map(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }
}
