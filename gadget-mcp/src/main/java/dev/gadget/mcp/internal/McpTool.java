package dev.gadget.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;

/** One tool of an MCP server, offered to the model as {@code server__tool}. */
final class McpTool implements Tool {
  private final ServerConnection server;
  private final McpSchema.Tool tool;
  private final ObjectMapper json;
  private final String name;
  private final JsonNode parameters;

  McpTool(ServerConnection server, McpSchema.Tool tool, ObjectMapper json) {
    this.server = server;
    this.tool = tool;
    this.json = json;
    this.name = ToolNames.of(server.name(), tool.name());
    JsonNode schema = tool.inputSchema() == null ? null : json.valueToTree(tool.inputSchema());
    if (schema == null || !schema.isObject()) {
      schema = json.createObjectNode().put("type", "object");
    }
    this.parameters = schema;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    String text = tool.description() != null ? tool.description()
        : tool.title() != null ? tool.title() : tool.name();
    return text + " (tool \"" + tool.name() + "\" of the MCP server \"" + server.name() + "\")";
  }

  @Override
  public JsonNode parameters() {
    return parameters;
  }

  @Override
  public ToolResult execute(JsonNode arguments, ToolContext context) throws InterruptedException {
    @SuppressWarnings("unchecked")
    Map<String, Object> args = json.convertValue(
        arguments == null ? json.createObjectNode() : (ObjectNode) arguments, Map.class);
    McpSchema.CallToolResult result;
    try {
      result = server.call(new McpSchema.CallToolRequest(tool.name(), args));
    } catch (RuntimeException e) {
      if (context.isCancelled()) {
        return ToolResult.error("cancelled");
      }
      return ToolResult.error("the MCP server \"" + server.name() + "\" could not run \""
          + tool.name() + "\": " + server.why(e));
    }
    String structured;
    try {
      structured = result.structuredContent() == null ? ""
          : json.writeValueAsString(result.structuredContent());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      structured = String.valueOf(result.structuredContent());
    }
    return ResultText.of(result, structured);
  }
}
