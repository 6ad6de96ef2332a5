package dev.gadget.mcp.internal;

/** The name the model calls an MCP server's tool by: {@code server__tool}, letters, digits, _. */
public final class ToolNames {
  /** The longest name OpenAI's and Anthropic's APIs accept. */
  static final int MAX = 64;

  private ToolNames() {}

  /** {@code server__tool} with every other character made {@code _}, at most 64 characters. */
  public static String of(String server, String tool) {
    String name = (server + "__" + tool).replaceAll("[^A-Za-z0-9_]", "_");
    if (name.length() <= MAX) {
      return name;
    }
    String hash = Integer.toHexString(name.hashCode());
    return name.substring(0, MAX - hash.length() - 1) + "_" + hash;
  }
}
