package dev.gadget.core.agent;

import java.util.Objects;

/**
 * A tool call waiting for approval, as a {@link ToolApprover} sees it.
 *
 * @param callId the id the model gave the call
 * @param toolName the tool's name
 * @param parameters the arguments, as a JSON text
 * @param command for {@code run_command}, the command line in full; otherwise {@code null}
 */
public record ApprovalRequest(String callId, String toolName, String parameters,
    String command) {
  public ApprovalRequest {
    Objects.requireNonNull(callId, "callId");
    Objects.requireNonNull(toolName, "toolName");
    Objects.requireNonNull(parameters, "parameters");
  }
}
