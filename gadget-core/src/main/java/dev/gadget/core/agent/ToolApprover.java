package dev.gadget.core.agent;

import dev.gadget.core.model.ToolApproval;
import java.util.concurrent.CompletionStage;

/**
 * Decides whether a tool call that the {@link ApprovalPolicy} holds back may run: a person in a
 * page, a rule, an allow-list. Set on the loop with {@link AgentLoop.Builder#approvals}.
 *
 * <p>{@link #review} is called on the run's thread, once per call that waits, and must return at
 * once; the run then waits for the stage without spinning a thread, until it completes, the
 * loop's approval timeout passes (a denial) or the run is cancelled (the stage is then cancelled
 * too, if it can be). A call approved {@link ToolApproval.Decision#APPROVED_FOR_SESSION for the
 * session} is remembered for the rest of the run, so later matching calls do not wait; to
 * remember it across runs, the approver keeps it itself. A denied call never runs: the model reads
 * {@code denied: <reason>} as its result and goes on. A stage completed exceptionally, or a
 * {@code review} that throws, denies the call.
 */
@FunctionalInterface
public interface ToolApprover {
  /**
   * Asks for a decision on {@code request}.
   *
   * @return the decision, when it is made
   */
  CompletionStage<ToolApproval> review(ApprovalRequest request);
}
