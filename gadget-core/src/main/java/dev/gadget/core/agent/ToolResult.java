package dev.gadget.core.agent;

import dev.gadget.core.model.ToolStep;
import java.util.List;
import java.util.Objects;

/**
 * What a tool tells the model.
 *
 * @param output the text for the model
 * @param error whether the tool failed; the loop prefixes the text with {@code "Error: "} and
 *     reports the call as unsuccessful, but the turn goes on
 * @param steps the inner steps the tool's run was observed to take (a composite synthesized
 *     tool's components), carried on the call ({@code ToolCall#steps}); empty for most tools
 */
public record ToolResult(String output, boolean error, List<ToolStep> steps) {
  public ToolResult {
    Objects.requireNonNull(output, "output");
    steps = steps == null ? List.of() : List.copyOf(steps);
  }

  /** A result without inner steps. */
  public ToolResult(String output, boolean error) {
    this(output, error, List.of());
  }

  /** This result with {@code output} instead, its error flag and steps kept. */
  public ToolResult withOutput(String output) {
    return new ToolResult(output, error, steps);
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
