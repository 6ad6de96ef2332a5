package dev.gadget.mcp;

/**
 * An MCP server could not be started or reached, or its configuration is wrong. The message says
 * which server and what happened, in words meant for the person who configured it.
 */
public final class McpException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An exception with a message for people. */
  public McpException(String message) {
    super(message);
  }

  /** An exception with a message for people and the failure behind it. */
  public McpException(String message, Throwable cause) {
    super(message, cause);
  }
}
