package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * How a tool call that waited for approval was decided, and by whom: stored with the call in its
 * turn's tool block.
 *
 * @param decision approved (once or for the rest of the session) or denied
 * @param scope for {@link Decision#APPROVED_FOR_SESSION}: the command prefix it covers (for
 *     {@code run_command}), or {@code null} for every call of the tool; otherwise {@code null}
 * @param decidedBy who decided: a user's id, {@code "timeout"} when nobody answered in time, or
 *     {@code "session"} when an earlier "approve for this session" covered the call
 * @param reason why it was denied (told to the model), or {@code null}
 */
public record ToolApproval(Decision decision, String scope, String decidedBy, String reason) {
  /** Who decided when nobody answered in time. */
  public static final String TIMEOUT = "timeout";
  /** Who decided when an earlier approval for the session covered the call. */
  public static final String SESSION = "session";

  public ToolApproval {
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(decidedBy, "decidedBy");
    scope = decision == Decision.APPROVED_FOR_SESSION && scope != null && !scope.isBlank()
        ? scope : null;
  }

  /** Approved for this call only. */
  public static ToolApproval approve(String decidedBy) {
    return new ToolApproval(Decision.APPROVED, null, decidedBy, null);
  }

  /**
   * Approved, and so is every later call of the tool in the session (whose command starts with
   * {@code commandPrefix}, when not {@code null}).
   */
  public static ToolApproval approveForSession(String decidedBy, String commandPrefix) {
    return new ToolApproval(Decision.APPROVED_FOR_SESSION, commandPrefix, decidedBy, null);
  }

  /** Denied; {@code reason} is told to the model. */
  public static ToolApproval deny(String decidedBy, String reason) {
    return new ToolApproval(Decision.DENIED, null, decidedBy, reason);
  }

  /** Whether the call may run. */
  public boolean approved() {
    return decision != Decision.DENIED;
  }

  /** The decisions. */
  public enum Decision {
    /** Run this call. */
    @JsonProperty("approved") APPROVED,
    /** Run this call and, without asking, the tool's later calls in the session. */
    @JsonProperty("approvedForSession") APPROVED_FOR_SESSION,
    /** Do not run it; the model is told why. */
    @JsonProperty("denied") DENIED
  }
}
