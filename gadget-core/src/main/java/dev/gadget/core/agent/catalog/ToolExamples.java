package dev.gadget.core.agent.catalog;

import dev.gadget.core.llm.ToolDefinition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Requests a user might make of a tool, in a user's words ("nuke the temp collection" for
 * {@code drop_collection}), indexed with the tool's name and description so that a search worded
 * as people ask finds it: written by the application for its own tools, or once per definition
 * by a model. Implementations are thread-safe and answer from memory: a catalog asks once per
 * tool when it is built.
 */
@FunctionalInterface
public interface ToolExamples {
  /** No examples: search reads the definitions only. */
  ToolExamples NONE = tool -> List.of();

  /** The most characters of one tool's examples that are indexed; the rest is left out. */
  int MAX_CHARS = 4_000;

  /** The examples of {@code tool}; empty when there are none. */
  List<String> of(ToolDefinition tool);

  /**
   * A catalog of {@code tools} is about to ask for their examples (one call before the
   * {@link #of} calls): a source that writes them may queue the missing ones together. The
   * default does nothing.
   */
  default void expect(List<ToolDefinition> tools) {}

  /**
   * Examples by tool name ({@code server__tool} for an MCP tool, as the loop names it).
   *
   * @throws NullPointerException if a name or a list is null
   */
  static ToolExamples byName(Map<String, List<String>> examples) {
    Map<String, List<String>> copy = new HashMap<>();
    examples.forEach((name, list) -> copy.put(Objects.requireNonNull(name, "name"),
        List.copyOf(Objects.requireNonNull(list, "examples of " + name))));
    return tool -> copy.getOrDefault(tool.name(), List.of());
  }
}
