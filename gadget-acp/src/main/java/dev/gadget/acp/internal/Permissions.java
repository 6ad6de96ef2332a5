package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.agent.ApprovalRequest;
import dev.gadget.core.agent.ToolApprover;
import dev.gadget.core.model.ToolApproval;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calls the approval policy holds back, asked of the editor with
 * {@code session/request_permission}: allow once, allow always (remembered for the session: a
 * tool, or for {@code run_command} the command's program), or reject. A request the editor
 * answers {@code cancelled}, or with an error, denies the call.
 */
final class Permissions implements ToolApprover {
  static final String ALLOW_ONCE = "allow_once";
  static final String ALLOW_ALWAYS = "allow_always";
  static final String REJECT_ONCE = "reject_once";
  /** Who decided, in the stored approval. */
  static final String EDITOR = "editor";

  private final Session session;
  /** Tools allowed for the session, {@code tool} or {@code run_command\nprogram}. */
  private final Set<String> always = ConcurrentHashMap.newKeySet();

  Permissions(Session session) {
    this.session = session;
  }

  @Override
  public CompletionStage<ToolApproval> review(ApprovalRequest request) {
    String program = program(request.command());
    if (always.contains(request.toolName()) || (program != null
        && always.contains(request.toolName() + "\n" + program)
        && (request.command().equals(program)
            || ApprovalPolicy.prefixCovers(program + " ", request.command())))) {
      return CompletableFuture.completedFuture(ToolApproval.approve(ToolApproval.SESSION));
    }
    session.flushWrites(); // the person may never answer: what was done so far is kept
    ObjectNode toolCall = session.announcePending(request.callId(), request.toolName(),
        request.parameters());
    ObjectNode params = GadgetJson.mapper().createObjectNode().put("sessionId", session.id());
    params.set("toolCall", toolCall);
    ArrayNode options = params.putArray("options");
    options.addObject().put("optionId", ALLOW_ONCE).put("name", "Allow once")
        .put("kind", "allow_once");
    options.addObject().put("optionId", ALLOW_ALWAYS).put("name", program != null
            ? "Always allow `" + program + "` commands in this session"
            : "Always allow " + request.toolName() + " in this session")
        .put("kind", "allow_always");
    options.addObject().put("optionId", REJECT_ONCE).put("name", "Reject")
        .put("kind", "reject_once");
    CompletableFuture<JsonNode> answer = session.connection()
        .call("session/request_permission", params);
    CompletableFuture<ToolApproval> decision = answer.handle((result, error) -> {
      if (error != null) {
        return ToolApproval.deny(EDITOR, "the editor could not ask: " + error.getMessage());
      }
      JsonNode outcome = result == null ? null : result.get("outcome");
      if (outcome == null || !"selected".equals(outcome.path("outcome").asText())) {
        return ToolApproval.deny(EDITOR, "the permission request was cancelled");
      }
      switch (outcome.path("optionId").asText()) {
        case ALLOW_ONCE:
          return ToolApproval.approve(EDITOR);
        case ALLOW_ALWAYS:
          always.add(program != null ? request.toolName() + "\n" + program : request.toolName());
          return ToolApproval.approveForSession(EDITOR, program);
        default:
          return ToolApproval.deny(EDITOR, "the user rejected it");
      }
    });
    // cancelling the decision (the turn was cancelled) stops waiting for the editor's answer
    decision.whenComplete((d, e) -> answer.cancel(false));
    return decision;
  }

  /** The program of a command line (its first word), or {@code null}. */
  static String program(String command) {
    if (command == null || command.isBlank()) {
      return null;
    }
    return command.strip().split("\\s+", 2)[0];
  }
}
