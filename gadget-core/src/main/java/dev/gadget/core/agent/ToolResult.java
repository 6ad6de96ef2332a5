package dev.gadget.core.agent;

import java.util.Objects;

/**
 * What a tool tells the model.
 *
 * @param output the text for the model
 * @param error whether the tool failed; the loop prefixes the text with {@code "Error: "} and
 *     reports the call as unsuccessful, but the turn goes on
 */
public record ToolResult(String output, boolean error) {
  public ToolResult {
    Objects.requireNonNull(output, "output");
  }

  /** A successful result. */
  public static ToolResult ok(String output) {
    return new ToolResult(output, false);
  }

  /** A failure the model should read and act on. */
  public static ToolResult error(String message) {
    return new ToolResult(message, true);
  }

  /** The text the model receives for this result. */
  public String forModel() {
    return error ? "Error: " + output : output;
  }
}
