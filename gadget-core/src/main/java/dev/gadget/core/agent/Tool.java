package dev.gadget.core.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ToolDefinition;

/**
 * A tool the model may call: the SPI behind the built-in coding tools
 * ({@link dev.gadget.core.agent.tools.CodingTools}) and any tool an application adds.
 *
 * <p><b>Contract.</b> {@link #execute} runs on the agent loop's thread, one call at a time per
 * run; one tool instance may serve several runs at once, so keep per-run state in
 * {@link ToolContext#state}. A tool reports a problem the model can act on (a missing file, a bad
 * argument) by returning {@link ToolResult#error} or throwing {@link ToolException}; any other
 * exception is also turned into an error result. Either way the result goes back to the model and
 * the turn goes on. A tool that blocks should stop when the turn is cancelled: the loop interrupts
 * its thread and runs the actions registered with {@link ToolContext#onCancel}.
 */
public interface Tool {
  /** The name the model calls it by: letters, digits and {@code _}, unique among a loop's tools. */
  String name();

  /** What it does and when to use it, for the model. */
  String description();

  /** The JSON schema of its arguments: an {@code object} schema. */
  JsonNode parameters();

  /**
   * Runs the tool.
   *
   * @param arguments the model's arguments, always a JSON object (the loop answers malformed
   *     arguments itself, without calling the tool)
   * @param context the project, path confinement, cancellation and per-run state
   * @return what to tell the model
   * @throws ToolException to tell the model what went wrong
   * @throws InterruptedException when the turn was cancelled while the tool waited
   * @throws Exception anything else, reported to the model as a failure of the tool
   */
  ToolResult execute(JsonNode arguments, ToolContext context) throws Exception;

  /** The definition offered to the model. */
  default ToolDefinition definition() {
    return new ToolDefinition(name(), description(), parameters());
  }
}
