package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * A tool the model called, with its result (seed 003, {@code IChatToolCall}).
 *
 * @param callId the id the model gave the call
 * @param name the tool's name
 * @param parameters the arguments as a JSON text
 * @param response the tool's result as text, or {@code null} while it has not run
 * @param error {@code true} when the tool failed (it reported an error, threw, timed out or was
 *     cancelled; its {@code response} then says why); {@code null} otherwise, and not written
 * @param durationMs how long it ran, in milliseconds, once it has run; {@code null} while it has
 *     not (and for calls stored before Gadget recorded it)
 * @param approval how the call was approved or denied when it waited for approval, or
 *     {@code null} when it did not wait
 * @param steps a composite synthesized tool's inner steps, in the order they started, as the
 *     drone observed them (at most {@link ToolStep#MAX_STEPS}); empty for other calls, and not
 *     written then
 */
public record ToolCall(String callId, String name, String parameters, String response,
    @JsonInclude(JsonInclude.Include.NON_NULL) Boolean error,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long durationMs,
    ToolApproval approval,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ToolStep> steps) {
  @JsonCreator // the canonical constructor, of the several
  public ToolCall {
    Objects.requireNonNull(callId, "callId");
    Objects.requireNonNull(name, "name");
    parameters = parameters == null ? "{}" : parameters;
    error = Boolean.TRUE.equals(error) ? Boolean.TRUE : null; // false: not written
    steps = steps == null ? List.of() : List.copyOf(steps);
    if (steps.size() > ToolStep.MAX_STEPS) {
      throw new IllegalArgumentException("a tool call holds at most " + ToolStep.MAX_STEPS
          + " steps; got " + steps.size());
    }
  }

  /** A call without inner steps. */
  public ToolCall(String callId, String name, String parameters, String response, Boolean error,
      Long durationMs, ToolApproval approval) {
    this(callId, name, parameters, response, error, durationMs, approval, List.of());
  }

  /** A call without an outcome recorded (not run yet, or run and not failed). */
  public ToolCall(String callId, String name, String parameters, String response) {
    this(callId, name, parameters, response, null, null, null);
  }

  /** A call with its outcome, that did not wait for approval. */
  public ToolCall(String callId, String name, String parameters, String response, Boolean error,
      Long durationMs) {
    this(callId, name, parameters, response, error, durationMs, null);
  }

  /** A call without an outcome recorded, approved or denied as {@code approval} says. */
  public ToolCall(String callId, String name, String parameters, String response,
      ToolApproval approval) {
    this(callId, name, parameters, response, null, null, approval);
  }

  /** This call with its result. */
  public ToolCall withResponse(String response) {
    return new ToolCall(callId, name, parameters, response, error, durationMs, approval, steps);
  }

  /** This call with its result, whether it failed, and how long it ran. */
  public ToolCall withOutcome(String response, boolean failed, long durationMs) {
    return new ToolCall(callId, name, parameters, response, failed, durationMs, approval, steps);
  }

  /** This call failed with {@code response}, how long it ran unknown (it was interrupted). */
  public ToolCall withFailure(String response) {
    return new ToolCall(callId, name, parameters, response, true, null, approval, steps);
  }

  /** This call with how it was approved or denied. */
  public ToolCall withApproval(ToolApproval approval) {
    return new ToolCall(callId, name, parameters, response, error, durationMs, approval, steps);
  }

  /** This call with {@code steps} as its inner steps. */
  public ToolCall withSteps(List<ToolStep> steps) {
    return new ToolCall(callId, name, parameters, response, error, durationMs, approval, steps);
  }

  /** Whether the tool failed. */
  @JsonIgnore
  public boolean failed() {
    return error != null;
  }
}
