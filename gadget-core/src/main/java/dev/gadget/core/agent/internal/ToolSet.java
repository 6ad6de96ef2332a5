package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.Tool;
import dev.gadget.core.llm.ToolDefinition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The tools of an agent loop by name, and their definitions for the model. Immutable. */
public final class ToolSet {
  private final Map<String, Tool> byName;
  private final List<ToolDefinition> definitions;

  /**
   * The tools, in order.
   *
   * @throws IllegalArgumentException if two tools have the same name
   */
  public ToolSet(List<? extends Tool> tools) {
    Map<String, Tool> map = new LinkedHashMap<>();
    for (Tool tool : tools) {
      if (map.put(tool.name(), tool) != null) {
        throw new IllegalArgumentException("two tools are named " + tool.name());
      }
    }
    this.byName = Collections.unmodifiableMap(map);
    List<ToolDefinition> defs = new ArrayList<>();
    for (Tool tool : map.values()) {
      defs.add(tool.definition());
    }
    this.definitions = List.copyOf(defs);
  }

  /** The tools offered to the model, in order. */
  public List<ToolDefinition> definitions() {
    return definitions;
  }

  /** The tool named {@code name}, or {@code null}. */
  public Tool get(String name) {
    return byName.get(name);
  }

  /** The names of the tools, in order, separated by commas. */
  public String names() {
    return String.join(", ", byName.keySet());
  }
}
