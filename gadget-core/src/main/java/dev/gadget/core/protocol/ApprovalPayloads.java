package dev.gadget.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnDiff;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.model.WorkspaceMode;
import java.util.List;
import java.util.Objects;

/**
 * The payloads of approvals: a tool call that waits for a person, the answer, the decision and a
 * session's policy (docs/PROTOCOL-APPROVALS.md, "Approvals").
 */
public final class ApprovalPayloads {
  private ApprovalPayloads() {}


  /**
   * {@code approvalRequest} (drone to server): a call of the running turn waits for approval.
   *
   * @param turnId the turn
   * @param callId the call's id
   * @param toolName the tool
   * @param parameters the arguments as JSON text
   * @param command for {@code run_command}, the command line in full
   */
  public record ApprovalRequest(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true, maxLength = Limits.NAME) String callId,
      @Rule(required = true, maxLength = Limits.NAME) String toolName,
      @Rule(blankAllowed = true) String parameters,
      @Rule(blankAllowed = true) String command) {}

  /**
   * The ack of {@code approvalRequest}: the decision if there is one already, or how long the
   * server waits for one before it denies the call.
   *
   * @param approval the decision, or {@code null} while the call waits
   * @param timeoutMs while it waits: the milliseconds left before the server denies it
   */
  public record ApprovalAck(ToolApproval approval, long timeoutMs) {}

  /**
   * {@code approvalPending} (server to page; also in {@code SessionSnapshot#approvals}): a call
   * waits for approval.
   *
   * @param sessionId the chat session
   * @param turnId the turn
   * @param callId the call's id
   * @param toolName the tool
   * @param parameters the arguments as JSON text
   * @param command for {@code run_command}, the command line in full
   * @param expiresAt when the server denies it if nobody answers
   */
  public record ApprovalPending(String sessionId, String turnId, String callId, String toolName,
      String parameters, String command, java.time.Instant expiresAt) {}

  /**
   * {@code answerApproval} (page to server).
   *
   * @param turnId the turn
   * @param callId the call's id
   * @param decision approved, approvedForSession or denied
   * @param scope for approvedForSession and {@code run_command}: the command prefix it covers
   *     ({@code null}: every call of the tool)
   * @param reason for denied: told to the model
   */
  public record AnswerApproval(@Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true, maxLength = Limits.NAME) String callId,
      @Rule(required = true) ToolApproval.Decision decision,
      @Rule(maxLength = Limits.PATH) String scope,
      @Rule(maxLength = Limits.PATH, blankAllowed = true) String reason) {}

  /**
   * {@code approvalDecided} (server to page and drone): how a waiting call was decided.
   *
   * @param sessionId the chat session
   * @param turnId the turn
   * @param callId the call's id
   * @param approval the decision and who made it
   */
  public record ApprovalDecided(@Rule(maxLength = Limits.ID) String sessionId,
      @Rule(required = true, maxLength = Limits.ID) String turnId,
      @Rule(required = true, maxLength = Limits.NAME) String callId,
      @Rule(required = true) ToolApproval approval) {}

  /**
   * {@code approvalPolicy} (page to server): sets the session's policy, or with {@code policy}
   * {@code null} reads it; and whether the agent may write itself tools in it.
   *
   * @param sessionId the chat session
   * @param policy never, commands, commands-and-writes or everything
   * @param createTools whether {@code create_tool} is offered in the session's turns (where the
   *     drone allows it), or {@code null}: unchanged (at first: as the drone says)
   */
  public record ApprovalPolicyRequest(@Rule(required = true, maxLength = Limits.ID)
      String sessionId, @Rule(oneOf = {"never", "commands", "commands-and-writes",
      "everything"}) String policy, Boolean createTools) {}

  /**
   * The ack of {@code approvalPolicy}, and a session's approvals in the ack of
   * {@code watchSession}.
   *
   * @param sessionId the chat session
   * @param policy its policy now
   * @param pending the calls that wait for approval, oldest first
   * @param createTools the session's {@code createTools}, or {@code null}: as the drone says
   */
  public record ApprovalPolicyReply(String sessionId, String policy,
      List<ApprovalPending> pending, Boolean createTools) {
    public ApprovalPolicyReply {
      pending = pending == null ? List.of() : List.copyOf(pending);
    }
  }
}
