package dev.gadget.acp;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Session updates as short lines, for asserting their order. */
final class Updates {
  private Updates() {}

  /** One line per update as sent, consecutive chunks of one kind merged, usage left out. */
  static List<String> lines(List<JsonNode> updates) {
    return lines(updates, false);
  }

  /** As {@link #lines(List)}, with each {@code usage_update} as a line {@code usage}. */
  static List<String> linesWithUsage(List<JsonNode> updates) {
    return lines(updates, true);
  }

  private static List<String> lines(List<JsonNode> updates, boolean usage) {
    List<String> out = new ArrayList<>();
    for (JsonNode u : updates) {
      String line = usage && u.path("sessionUpdate").asText().equals("usage_update") ? "usage"
          : line(u);
      if (line == null) {
        continue;
      }
      boolean chunk = line.equals("thought") || line.equals("message");
      if (chunk && !out.isEmpty() && out.get(out.size() - 1).equals(line)) {
        continue;
      }
      out.add(line);
    }
    return out;
  }

  static String line(JsonNode u) {
    switch (u.path("sessionUpdate").asText()) {
      case "agent_thought_chunk":
        return "thought";
      case "agent_message_chunk":
        return "message";
      case "user_message_chunk":
        return "user " + u.path("content").path("text").asText();
      case "tool_call":
        return "tool_call " + u.path("kind").asText() + " " + u.path("status").asText() + " "
            + u.path("title").asText() + contents(u);
      case "tool_call_update":
        return "update" + (u.has("status") ? " " + u.path("status").asText() : "")
            + contents(u);
      case "plan":
        List<String> states = new ArrayList<>();
        u.path("entries").forEach(e -> states.add(e.path("status").asText()));
        return "plan " + String.join(",", states);
      default:
        return null; // usage_update
    }
  }

  /** " diff" and " terminal" for the content blocks of those types a tool call has. */
  private static String contents(JsonNode u) {
    String out = "";
    for (String type : List.of("terminal", "diff")) {
      for (JsonNode c : u.path("content")) {
        if (c.path("type").asText().equals(type)) {
          out += " " + type;
          break;
        }
      }
    }
    return out;
  }

  /** The text of the agent's message chunks as sent, joined. */
  static String message(List<JsonNode> updates) {
    StringBuilder sb = new StringBuilder();
    for (JsonNode u : updates) {
      if (u.path("sessionUpdate").asText().equals("agent_message_chunk")) {
        sb.append(u.path("content").path("text").asText());
      }
    }
    return sb.toString();
  }

  /** The diffs the SDK's client received, in the order it handed them over. */
  static List<AcpSchema.ToolCallDiff> diffs(List<AcpSchema.SessionUpdate> updates) {
    List<AcpSchema.ToolCallDiff> out = new ArrayList<>();
    for (AcpSchema.SessionUpdate u : updates) {
      if (u instanceof AcpSchema.ToolCallUpdateNotification t && t.content() != null) {
        t.content().stream().filter(c -> c instanceof AcpSchema.ToolCallDiff)
            .forEach(c -> out.add((AcpSchema.ToolCallDiff) c));
      }
    }
    return out;
  }
}
