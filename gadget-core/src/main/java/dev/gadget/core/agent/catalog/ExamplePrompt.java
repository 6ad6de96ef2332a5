package dev.gadget.core.agent.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ToolDefinition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a model is asked to write examples of tools with, and how its answer is read: one JSON
 * object, each tool's name to a list of requests. Pure and thread-safe.
 */
final class ExamplePrompt {
  /** The most characters of one example kept. */
  static final int MAX_EXAMPLE_CHARS = 200;

  private ExamplePrompt() {}

  /** The messages asking for {@code perTool} examples of each of {@code tools}. */
  static List<LlmMessage> messages(List<ToolDefinition> tools, int perTool) {
    StringBuilder sb = new StringBuilder();
    sb.append("For each tool below, write ").append(perTool).append(" different requests a ")
        .append("user might type to an AI coding agent when they need that tool. Each is short ")
        .append("(3 to 14 words) and in the user's own words: everyday verbs, questions as ")
        .append("well as commands, sometimes naming the product or a file, not copied from the ")
        .append("description. Answer with one JSON object only, each tool's exact name to a ")
        .append("list of ").append(perTool).append(" strings.\n\nTools:\n");
    for (ToolDefinition t : tools) {
      sb.append("- ").append(t.name()).append(": ").append(SemanticToolIndex.text(t))
          .append('\n');
    }
    return List.of(LlmMessage.system("You write example requests for software tools, as the "
        + "people who use them would ask. You answer with JSON only."), LlmMessage.user(
        sb.toString()));
  }

  /**
   * The examples the answer gives each of {@code tools}, by name (at most {@code perTool} a
   * tool, each at most {@value #MAX_EXAMPLE_CHARS} characters); a tool it gives none is left
   * out.
   *
   * @throws IllegalArgumentException in words, when the answer holds no JSON object
   */
  static Map<String, List<String>> read(String answer, List<ToolDefinition> tools, int perTool) {
    int start = answer == null ? -1 : answer.indexOf('{');
    int end = answer == null ? -1 : answer.lastIndexOf('}');
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("the model answered without a JSON object");
    }
    JsonNode json;
    try {
      json = GadgetJson.mapper().readTree(answer.substring(start, end + 1));
    } catch (IOException e) {
      throw new IllegalArgumentException("the model's answer is not valid JSON", e);
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (ToolDefinition t : tools) {
      List<String> list = new ArrayList<>();
      for (JsonNode e : json.path(t.name())) {
        String text = e.isTextual() ? e.asText().strip().replaceAll("\\s+", " ") : "";
        if (!text.isEmpty() && list.size() < perTool) {
          list.add(text.length() <= MAX_EXAMPLE_CHARS ? text
              : text.substring(0, MAX_EXAMPLE_CHARS));
        }
      }
      if (!list.isEmpty()) {
        out.put(t.name(), List.copyOf(list));
      }
    }
    return out;
  }
}
