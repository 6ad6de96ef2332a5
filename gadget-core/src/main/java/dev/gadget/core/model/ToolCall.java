package dev.gadget.core.model;

import java.util.Objects;

/**
 * A tool the model called, with its result (seed 003, {@code IChatToolCall}).
 *
 * @param callId the id the model gave the call
 * @param name the tool's name
 * @param parameters the arguments as a JSON text
 * @param response the tool's result as text, or {@code null} while it has not run
 * @param approval how the call was approved or denied when it waited for approval, or
 *     {@code null} when it did not wait
 */
public record ToolCall(String callId, String name, String parameters, String response,
    ToolApproval approval) {
  public ToolCall {
    Objects.requireNonNull(callId, "callId");
    Objects.requireNonNull(name, "name");
    parameters = parameters == null ? "{}" : parameters;
  }

  /** A call that did not wait for approval. */
  public ToolCall(String callId, String name, String parameters, String response) {
    this(callId, name, parameters, response, null);
  }

  /** This call with its result. */
  public ToolCall withResponse(String response) {
    return new ToolCall(callId, name, parameters, response, approval);
  }

  /** This call with how it was approved or denied. */
  public ToolCall withApproval(ToolApproval approval) {
    return new ToolCall(callId, name, parameters, response, approval);
  }
}
