package dev.gadget.core.server.internal;

import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.catalog.ToolMatch;
import dev.gadget.core.agent.catalog.ToolSearch;
import dev.gadget.core.agent.skills.ActivateSkillTool;
import dev.gadget.core.agent.synth.CreateToolTool;
import dev.gadget.core.agent.tools.PlanTool;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import java.util.ArrayList;
import java.util.HashMap;
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
  private final String sessionId;
  private final Consumer<AgentTurnEvents> onEnd;
  private final List<Object[]> early = new ArrayList<>();
  private final Set<String> started = new HashSet<>();
  private final Map<String, Double> found = new HashMap<>();
  private final AgentWorkflow workflow;
  private final AgentSynthesis synthesis = new AgentSynthesis(this::agentEvent);
  private final AgentPatterns patterns = new AgentPatterns(this::agentEvent);
  private String turnId;
  private boolean ended;
  private String lastToolName = "";
  private String lastToolResult = "";

  /**
   * Tells {@code client} about the turn of {@code prompt}, naming the session
   * {@code sessionId} as the client does; {@code onEnd} runs once after {@code query_complete}.
   */
  AgentTurnEvents(Connection client, String prompt, String sessionId,
      Consumer<AgentTurnEvents> onEnd) {
    this.client = client;
    this.sessionId = sessionId;
    this.onEnd = onEnd;
    this.workflow = new AgentWorkflow(prompt, this::agentEvent);
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
      workflow.text(e.data());
    } else if (payload instanceof Payloads.ToolStarted e && e.turnId().equals(turnId)) {
      if (ToolSearch.NAME.equals(e.name())) {
        started.add(e.callId());
        agentEvent("searching", map("query", query(e.args())));
      } else if (CreateToolTool.NAME.equals(e.name())) {
        started.add(e.callId());
        workflow.synthesisStarted(e.callId());
        synthesis.started(e.args());
      } else if (!PlanTool.NAME.equals(e.name())) {
        started.add(e.callId());
        patterns.toolStarted(e.name());
        if (!workflow.toolStarted(e.callId(), e.name(), found.getOrDefault(e.name(), 1.0))) {
          agentEvent("executing", map("tool_name", e.name()));
        }
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
    lastToolName = call.name();
    lastToolResult = call.response() == null ? "" : call.response();
    if (CreateToolTool.NAME.equals(call.name())) {
      boolean registered = synthesis.ended(call, started.contains(call.callId()));
      workflow.synthesisEnded(registered, CreateToolTool.read(call.response()).toolName());
      workflow.toolEnded(call.callId(), call.name(), lastToolResult, call.failed());
      return;
    }
    synthesis.ran(call);
    if (!workflow.toolEnded(call.callId(), call.name(), lastToolResult, call.failed())) {
      toldAlone(call); // else the step's end tells it
    }
    if (started.contains(call.callId())) {
      patterns.toolEnded(call);
    }
    if (ActivateSkillTool.NAME.equals(call.name())) {
      patterns.activated(call);
    }
  }

  /** Whether {@code call} was answered without running: denied, or not loaded yet. */
  private static boolean didNotRun(ToolCall call) {
    String response = call.response() == null ? "" : call.response();
    return call.failed() && (call.approval() != null
        && call.approval().decision() == dev.gadget.core.model.ToolApproval.Decision.DENIED
        || response.startsWith("Error: " + call.name() + ToolDeferral.NOT_LOADED));
  }

  /** A tool's result outside a plan step: {@code execution_*}. */
  private void toldAlone(ToolCall call) {
    if (!started.contains(call.callId()) || didNotRun(call)) {
      // told without a start (a call a drone's crash interrupted, not run again), denied, or a
      // deferred tool called before it was loaded (answered with its definition)
      agentEvent("execution_skipped", map("reason", call.response()));
    } else if (call.failed()) {
      agentEvent("execution_failed", AgentSynthesis.withSteps(map("error", call.response()),
          call));
    } else {
      agentEvent("execution_complete", AgentSynthesis.withSteps(map("result",
          call.response()), call));
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
        found.put(m.name(), m.similarity());
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

  /** An {@code update_plan} call: its arguments tell the workflow. */
  private void planned(ToolCall call) {
    try {
      workflow.planned(GadgetJson.mapper().readTree(call.parameters()));
    } catch (java.io.IOException e) {
      // a plan the tool refused never reaches here; one that cannot be read tells nothing
    }
  }

  /**
   * The turn ended: a finished one is {@code synthesizing_response} (once, after the workflow)
   * and {@code complete}; one that did not finish is told by {@code query_complete} and an
   * {@code error} with its reason (a model's refusal in the provider's words).
   */
  private void end(Payloads.WorkOrderComplete e) {
    ended = true;
    boolean success = e.status() == TurnStatus.FINISHED;
    String text = e.text() == null ? "" : e.text();
    String error = e.error() != null && !e.error().isBlank() ? e.error()
        : "the turn ended " + e.status().name().toLowerCase(java.util.Locale.ROOT);
    workflow.turnEnded(success, error);
    patterns.turnEnded();
    if (success) {
      agentEvent("synthesizing_response", map("tool_result", lastToolResult));
      agentEvent("complete", map("response", text));
    }
    Map<String, Object> metadata = map("tool_name", lastToolName, "synthesized",
        synthesis.synthesized(),
        "tool_result", lastToolResult, "turn_id", turnId,
        "status", e.status().name().toLowerCase(java.util.Locale.ROOT));
    emit(Protocol.QUERY_COMPLETE, map("success", success, "response", success ? text : error,
        "metadata", metadata, "session_id", sessionId));
    if (!success) {
      emit(Protocol.ERROR, map("message", error));
    }
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
