package dev.gadget.core.agent.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.llm.ToolDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The 304 tool definitions of 18 real MCP servers from npm, as {@code scripts/mcp-catalog}
 * captured them ({@code catalog/mcp-tools.json}), named as gadget-mcp names them
 * ({@code server__tool}), and as tools that record their calls instead of reaching a service.
 */
public final class McpCatalogFixture {
  private McpCatalogFixture() {}

  /** The definitions, in the file's order. */
  public static List<ToolDefinition> definitions() {
    try (InputStream in = McpCatalogFixture.class.getResourceAsStream("/catalog/mcp-tools.json")) {
      List<ToolDefinition> out = new ArrayList<>();
      for (JsonNode t : GadgetJson.mapper().readTree(in)) {
        String name = t.path("server").asText() + "__"
            + t.path("name").asText().replaceAll("[^A-Za-z0-9_]", "_");
        out.add(new ToolDefinition(name, t.path("description").asText(), t.path("inputSchema")));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The example requests of {@code catalog/tool-examples.json} (six a tool, written by a model
   * from {@code mcp-tools.json} alone), by the tools' names as {@link #definitions} gives them.
   */
  public static ToolExamples examples() {
    return examples("/catalog/tool-examples.json");
  }

  /**
   * The example requests of a JSON resource (each tool's name to its examples), by the tools'
   * names as gadget-mcp names them. For the benchmarks, {@code -Dexamples.perTool=K} keeps K of
   * a tool's examples, the first from {@code -Dexamples.from=I} on, going round (fewer examples
   * stand in for a model that writes worse ones).
   */
  public static ToolExamples examples(String resource) {
    int keep = Integer.getInteger("examples.perTool", Integer.MAX_VALUE);
    int from = Integer.getInteger("examples.from", 0);
    try (InputStream in = McpCatalogFixture.class.getResourceAsStream(resource)) {
      java.util.Map<String, List<String>> byName = new java.util.HashMap<>();
      GadgetJson.mapper().readTree(in).fields().forEachRemaining(e -> {
        List<String> list = new ArrayList<>();
        int n = e.getValue().size();
        for (int i = 0; i < Math.min(keep, n); i++) {
          list.add(e.getValue().get((from + i) % n).asText());
        }
        byName.put(e.getKey().replaceAll("[^A-Za-z0-9_]", "_"), list);
      });
      return ToolExamples.byName(byName);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Tools of those definitions; each call is added to {@code calls} as {@code name args}. */
  public static List<Tool> tools(Queue<String> calls) {
    List<Tool> out = new ArrayList<>();
    for (ToolDefinition d : definitions()) {
      out.add(new Tool() {
        @Override
        public String name() {
          return d.name();
        }

        @Override
        public String description() {
          return d.description();
        }

        @Override
        public JsonNode parameters() {
          return d.parameters();
        }

        @Override
        public ToolResult execute(JsonNode arguments, ToolContext context) {
          calls.add(d.name() + " " + arguments);
          return ToolResult.ok("ran " + d.name());
        }
      });
    }
    return out;
  }

  /** A new queue for {@link #tools}. */
  public static Queue<String> calls() {
    return new ConcurrentLinkedQueue<>();
  }
}
