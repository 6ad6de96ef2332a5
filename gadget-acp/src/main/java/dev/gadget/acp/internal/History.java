package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.tools.EditFileTool;
import dev.gadget.core.agent.tools.PlanTool;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A stored session's turns as the {@code session/update}s that {@code session/load} replays, in
 * order: each turn's prompt as {@code user_message_chunk}, its thinking and text as
 * {@code agent_thought_chunk} and {@code agent_message_chunk}, each tool call as one
 * {@code tool_call} with its final status and output ({@code update_plan} followed by its
 * {@code plan}; an {@code edit_file} with a {@code diff} of the text it replaced), and a turn
 * that did not finish with the sentence saying why. Superseded text and compactions are the
 * store's business and are not replayed. Pure.
 */
final class History {
  private History() {}

  /** The updates (without {@code sessionId}) that replay {@code turns} on {@code cwd}. */
  static List<ObjectNode> updates(List<ChatTurn> turns, Path cwd) {
    List<ObjectNode> out = new ArrayList<>();
    for (ChatTurn turn : turns) {
      out.add(chunk("user_message_chunk", turn.prompt()));
      for (TurnBlock b : turn.blocks()) {
        if (b.isSuperseded()) {
          continue;
        }
        if (b instanceof TurnBlock.Thinking t) {
          out.add(chunk("agent_thought_chunk", t.content()));
        } else if (b instanceof TurnBlock.Responding r) {
          out.add(chunk("agent_message_chunk", r.content()));
        } else if (b instanceof TurnBlock.Tool tool) {
          tool(tool.content(), cwd, out);
        }
      }
      if (turn.status() != TurnStatus.FINISHED && turn.error() != null) {
        out.add(chunk("agent_message_chunk", "\n\n" + turn.error()));
      }
    }
    out.removeIf(u -> u.path("content").path("text").asText("-").isEmpty());
    return out;
  }

  private static void tool(ToolCall call, Path cwd, List<ObjectNode> out) {
    JsonNode args = ToolCalls.arguments(call.parameters());
    ObjectNode update = GadgetJson.mapper().createObjectNode().put("sessionUpdate", "tool_call")
        .put("toolCallId", call.callId()).put("title", ToolCalls.title(call.name(), args))
        .put("kind", ToolCalls.kind(call.name()))
        .put("status", call.failed() || call.response() == null ? "failed" : "completed");
    update.set("locations", ToolCalls.locations(call.name(), args, cwd));
    update.set("rawInput", args);
    ArrayNode content = update.putArray("content");
    String output = UpdateSender.capped(call.response() == null ? "" : call.response());
    content.addObject().put("type", "content").putObject("content").put("type", "text")
        .put("text", output);
    if (!call.failed() && call.name().equals(EditFileTool.NAME)
        && args.path("old_text").isTextual() && args.path("new_text").isTextual()
        && update.path("locations").size() == 1) {
      // the stored call has the text it replaced, not the whole file: the diff shows that part
      content.addObject().put("type", "diff")
          .put("path", update.path("locations").get(0).path("path").asText())
          .put("oldText", args.get("old_text").asText())
          .put("newText", args.get("new_text").asText());
    }
    out.add(update);
    if (!call.failed() && call.name().equals(PlanTool.NAME)) {
      JsonNode entries = ToolCalls.planEntries(args);
      if (entries != null) {
        ObjectNode plan = GadgetJson.mapper().createObjectNode().put("sessionUpdate", "plan");
        plan.set("entries", entries);
        out.add(plan);
      }
    }
  }

  private static ObjectNode chunk(String kind, String text) {
    ObjectNode update = GadgetJson.mapper().createObjectNode().put("sessionUpdate", kind);
    update.putObject("content").put("type", "text").put("text", text);
    return update;
  }
}
