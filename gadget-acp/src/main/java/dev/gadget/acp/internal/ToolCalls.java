package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import java.nio.file.Path;

/**
 * How a Gadget tool call reads in ACP: its {@code kind}, a short {@code title} for people and
 * the {@code locations} (absolute paths) it touches. Pure.
 */
public final class ToolCalls {
  private static final ObjectMapper JSON = GadgetJson.mapper();

  private ToolCalls() {}

  /** The arguments of a call as JSON, an empty object when they are not JSON. */
  public static JsonNode arguments(String parameters) {
    try {
      JsonNode n = JSON.readTree(parameters == null ? "{}" : parameters);
      return n != null && n.isObject() ? n : JSON.createObjectNode();
    } catch (Exception e) {
      return JSON.createObjectNode();
    }
  }

  /** ACP's kind for the tool named {@code name}. */
  public static String kind(String name) {
    switch (name) {
      case "read_file":
        return "read";
      case "write_file":
      case "edit_file":
        return "edit";
      case "list_dir":
      case "glob":
      case "grep":
        return "search";
      case "run_command":
        return "execute";
      case "update_plan":
        return "think";
      default:
        return "other";
    }
  }

  /** A short title, such as {@code Read src/Main.java} or {@code Run `mvn test`}. */
  public static String title(String name, JsonNode args) {
    String path = args.path("path").asText("");
    String shown = path.isEmpty() ? "the project" : path;
    switch (name) {
      case "read_file":
        return "Read " + shown + lines(args);
      case "write_file":
        return "Write " + shown;
      case "edit_file":
        return "Edit " + shown;
      case "list_dir":
        return "List " + (path.isEmpty() || path.equals(".") ? "the project" : path);
      case "glob":
        return "Find " + args.path("pattern").asText("files") + (path.isEmpty() ? ""
            : " in " + path);
      case "grep":
        return "Search for " + quoted(args.path("pattern").asText("")) + (path.isEmpty() ? ""
            : " in " + path);
      case "run_command":
        return "Run `" + oneLine(args.path("command").asText(""), 120) + "`";
      case "update_plan":
        return "Update the plan";
      default:
        return name.contains("__") ? name.replaceFirst("__", ": ") : name;
    }
  }

  /** The files a call touches, as ACP locations with absolute paths (empty when none). */
  public static ArrayNode locations(String name, JsonNode args, Path projectDir) {
    ArrayNode out = JSON.createArrayNode();
    if (!args.path("path").isTextual() || kind(name).equals("other")) {
      return out;
    }
    String path = args.get("path").asText();
    Path p;
    try {
      p = projectDir.resolve(path).normalize();
    } catch (RuntimeException e) {
      return out;
    }
    if (!p.startsWith(projectDir)) {
      return out; // the tool refuses it; nothing to point at
    }
    ObjectNode location = out.addObject().put("path", p.toString());
    if (name.equals("read_file") && args.path("start_line").canConvertToInt()) {
      location.put("line", args.get("start_line").asInt());
    }
    return out;
  }

  /**
   * The plan of an {@code update_plan} call as ACP plan entries ({@code content},
   * {@code priority}, {@code status}), or {@code null} when the arguments hold no plan.
   */
  public static ArrayNode planEntries(JsonNode args) {
    JsonNode plan = args.get("plan");
    if (plan == null || !plan.isArray() || plan.isEmpty()) {
      return null;
    }
    ArrayNode entries = JSON.createArrayNode();
    for (JsonNode step : plan) {
      String status = step.path("status").asText("pending");
      entries.addObject().put("content", step.path("step").asText("").strip())
          .put("priority", "medium")
          .put("status", status.equals("in_progress") || status.equals("completed") ? status
              : "pending");
    }
    return entries;
  }

  private static String lines(JsonNode args) {
    JsonNode from = args.get("start_line");
    JsonNode to = args.get("end_line");
    if (from == null && to == null) {
      return "";
    }
    return " (lines " + (from == null ? "1" : from.asText()) + "-"
        + (to == null ? "end" : to.asText()) + ")";
  }

  private static String quoted(String s) {
    return "\u201c" + oneLine(s, 60) + "\u201d";
  }

  static String oneLine(String s, int max) {
    String t = s.replaceAll("\\s+", " ").strip();
    return t.length() <= max ? t : t.substring(0, max - 1) + "\u2026";
  }
}
