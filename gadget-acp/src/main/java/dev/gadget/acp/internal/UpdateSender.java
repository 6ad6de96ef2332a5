package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.tools.EditFileTool;
import dev.gadget.core.agent.tools.PlanTool;
import dev.gadget.core.agent.tools.WriteFileTool;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.stream.StreamChunk;
import java.time.Duration;

/**
 * One turn's events as {@code session/update} notifications: thinking as
 * {@code agent_thought_chunk}, text as {@code agent_message_chunk}, each tool as
 * {@code tool_call} then {@code tool_call_update} (its status, its output, a {@code diff} for an
 * edit), {@code update_plan} as {@code plan} as well, and the context's size as
 * {@code usage_update}.
 */
final class UpdateSender implements AgentListener {
  /** The most characters of a tool's output sent to the editor. */
  static final int MAX_OUTPUT_CHARS = 20_000;

  private final Session session;
  private long lastUsed = -1;

  UpdateSender(Session session) {
    this.session = session;
  }

  @Override
  public void onChunk(StreamChunk chunk) {
    if (chunk instanceof StreamChunk.Thinking t) {
      chunk("agent_thought_chunk", t.data());
    } else if (chunk instanceof StreamChunk.Response r) {
      chunk("agent_message_chunk", r.data());
    }
  }

  /** Sends {@code text} as the agent's message. */
  void message(String text) {
    chunk("agent_message_chunk", text);
  }

  private void chunk(String kind, String text) {
    if (text.isEmpty()) {
      return;
    }
    ObjectNode update = GadgetJson.mapper().createObjectNode().put("sessionUpdate", kind);
    update.putObject("content").put("type", "text").put("text", text);
    session.update(update);
  }

  @Override
  public void onToolStart(ToolCall call) {
    session.lastDiff().set(null);
    session.runningCall(call.callId());
    if (session.wasAnnounced(call.callId())) {
      ObjectNode update = GadgetJson.mapper().createObjectNode()
          .put("sessionUpdate", "tool_call_update").put("toolCallId", call.callId())
          .put("status", "in_progress");
      session.update(update);
      return;
    }
    ObjectNode update = session.toolCall(call.callId(), call.name(), call.parameters(),
        "in_progress");
    update.put("sessionUpdate", "tool_call");
    session.update(update);
  }

  @Override
  public void onToolEnd(ToolCall call, boolean success, Duration duration) {
    ObjectNode update = GadgetJson.mapper().createObjectNode()
        .put("sessionUpdate", "tool_call_update").put("toolCallId", call.callId())
        .put("status", success ? "completed" : "failed");
    ArrayNode content = update.putArray("content");
    String output = capped(call.response() == null ? "" : call.response());
    session.runningCall(null);
    String terminal = session.takeTerminal(call.callId());
    if (terminal != null) {
      content.addObject().put("type", "terminal").put("terminalId", terminal);
    }
    content.addObject().put("type", "content").putObject("content").put("type", "text")
        .put("text", output);
    Diffs.Diff diff = session.lastDiff().getAndSet(null);
    boolean edit = call.name().equals(WriteFileTool.NAME) || call.name().equals(EditFileTool.NAME);
    if (success && edit && diff != null) {
      ObjectNode d = content.addObject().put("type", "diff").put("path", diff.path().toString())
          .put("newText", diff.newText());
      if (diff.oldText() != null) {
        d.put("oldText", diff.oldText());
      } else {
        d.putNull("oldText");
      }
    }
    ObjectNode raw = update.putObject("rawOutput").put("output", output)
        .put("durationMs", duration.toMillis());
    if (call.approval() != null) {
      raw.put("approval", call.approval().decision().name().toLowerCase());
    }
    session.update(update);
    if (success && call.name().equals(PlanTool.NAME)) {
      JsonNode entries = ToolCalls.planEntries(ToolCalls.arguments(call.parameters()));
      if (entries != null) {
        ObjectNode plan = GadgetJson.mapper().createObjectNode().put("sessionUpdate", "plan");
        plan.set("entries", entries);
        session.update(plan);
      }
    }
  }

  /** {@code output} cut to {@link #MAX_OUTPUT_CHARS}, saying how much was left out. */
  static String capped(String output) {
    return output.length() <= MAX_OUTPUT_CHARS ? output : output.substring(0, MAX_OUTPUT_CHARS)
        + "\n[… " + (output.length() - MAX_OUTPUT_CHARS) + " more characters]";
  }

  @Override
  public void onStats(TurnStats soFar) {
    if (soFar.contextTokens() <= 0 || soFar.contextBudget() <= 0
        || soFar.contextTokens() == lastUsed) {
      return;
    }
    lastUsed = soFar.contextTokens();
    session.update(GadgetJson.mapper().createObjectNode().put("sessionUpdate", "usage_update")
        .put("used", soFar.contextTokens()).put("size", soFar.contextBudget()));
  }
}
