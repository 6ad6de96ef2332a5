/**
 * MCP servers' tools as Gadget agent tools, on the official MCP Java SDK: start servers over stdio
 * or streamable HTTP with {@link dev.gadget.mcp.McpToolset}, describe them in code
 * ({@link dev.gadget.mcp.McpServerConfig}) or in a project's file ({@link dev.gadget.mcp.McpConfig}).
 * The SDK plumbing lives in an internal package that is not exported.
 */
module dev.gadget.mcp {
  requires transitive dev.gadget.core;
  requires io.modelcontextprotocol.sdk.mcp.core;
  requires io.modelcontextprotocol.sdk.mcp.json.jackson2;
  requires reactor.core;
  requires org.slf4j;

  exports dev.gadget.mcp;
}
