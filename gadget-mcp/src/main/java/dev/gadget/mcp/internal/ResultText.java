package dev.gadget.mcp.internal;

import dev.gadget.core.agent.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.util.ArrayList;
import java.util.List;

/** An MCP tool result as the text the model reads: text as is, other content described. */
final class ResultText {
  private ResultText() {}

  static ToolResult of(CallToolResult result, String json) {
    List<String> parts = new ArrayList<>();
    for (McpSchema.Content content : result.content() == null
        ? List.<McpSchema.Content>of() : result.content()) {
      parts.add(describe(content));
    }
    if (parts.isEmpty() && result.structuredContent() != null) {
      parts.add(json);
    }
    String text = String.join("\n", parts);
    if (Boolean.TRUE.equals(result.isError())) {
      return ToolResult.error(text.isEmpty() ? "the tool failed without saying why" : text);
    }
    return ToolResult.ok(text.isEmpty() ? "(no output)" : text);
  }

  private static String describe(McpSchema.Content content) {
    if (content instanceof McpSchema.TextContent text) {
      return text.text();
    }
    if (content instanceof McpSchema.ImageContent image) {
      return "[image, " + image.mimeType() + ", " + base64Bytes(image.data()) + " bytes]";
    }
    if (content instanceof McpSchema.AudioContent audio) {
      return "[audio, " + audio.mimeType() + ", " + base64Bytes(audio.data()) + " bytes]";
    }
    if (content instanceof McpSchema.ResourceLink link) {
      return "[resource " + link.uri() + (link.description() == null ? "" : ": "
          + link.description()) + "]";
    }
    if (content instanceof McpSchema.EmbeddedResource embedded) {
      McpSchema.ResourceContents resource = embedded.resource();
      if (resource instanceof McpSchema.TextResourceContents text) {
        return "[resource " + text.uri() + "]\n" + text.text();
      }
      return "[resource " + resource.uri() + ", " + resource.mimeType() + ", binary]";
    }
    return "[" + content.type() + " content]";
  }

  private static long base64Bytes(String data) {
    return data == null ? 0 : data.length() * 3L / 4;
  }
}
