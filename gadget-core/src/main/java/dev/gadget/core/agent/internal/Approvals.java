package dev.gadget.core.agent.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.agent.ApprovalRequest;
import dev.gadget.core.agent.ToolApprover;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.tools.RunCommandTool;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.model.ToolApproval;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop's approval step: which calls wait ({@link ApprovalPolicy}), asking the
 * {@link ToolApprover}, waiting for its answer (bounded, ended by a cancel) and remembering what
 * was approved for the rest of the run.
 *
 * @param policy which calls wait
 * @param approver who decides
 * @param timeout how long a call waits before it is denied
 */
public record Approvals(ApprovalPolicy policy, ToolApprover approver, Duration timeout) {
  private static final Logger log = LoggerFactory.getLogger(Approvals.class);

  /** Nothing waits. */
  public static final Approvals NONE = new Approvals(ApprovalPolicy.NEVER,
      r -> CompletableFuture.completedFuture(ToolApproval.approve("policy")), Duration.ofHours(1));

  public Approvals {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(approver, "approver");
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the approval timeout must be positive");
    }
  }

  /**
   * The decision on {@code call}, waiting for it if the policy says so; {@code null} when the call
   * does not wait. Run on the run's thread.
   *
   * @throws Cancelled if the run is cancelled while it waits
   */
  public ToolApproval decide(ToolContext ctx, LlmToolCall call, String parameters) {
    return decide(ctx, call, parameters, false);
  }

  /**
   * The same for a tool that {@code runsCode} as a command does (a synthesized tool): it waits
   * whenever commands do.
   */
  public ToolApproval decide(ToolContext ctx, LlmToolCall call, String parameters,
      boolean runsCode) {
    boolean asks = policy.asksFor(call.name())
        || (runsCode && policy.asksFor(dev.gadget.core.agent.tools.RunCommandTool.NAME));
    if (!asks) {
      return null;
    }
    String command = command(call);
    Grants grants = ctx.state(Grants.class, Grants::new);
    if (grants.covers(call.name(), command)) {
      return ToolApproval.approve(ToolApproval.SESSION);
    }
    if (ctx.isCancelled()) {
      throw new Cancelled();
    }
    CompletableFuture<ToolApproval> answer = new CompletableFuture<>();
    CompletionStage<ToolApproval> stage;
    try {
      stage = Objects.requireNonNull(
          approver.review(new ApprovalRequest(call.id(), call.name(), parameters, command)),
          "the approver returned no stage");
    } catch (RuntimeException e) {
      log.warn("the tool approver threw; the call is denied", e);
      return ToolApproval.deny("approver", "the approver failed");
    }
    stage.whenComplete((d, e) -> {
      if (e != null) {
        answer.completeExceptionally(e);
      } else {
        answer.complete(d);
      }
    });
    ToolContext.Registration onCancel = ctx.onCancel(() -> {
      answer.cancel(false);
      try {
        stage.toCompletableFuture().cancel(false);
      } catch (UnsupportedOperationException e) {
        // a stage that cannot be cancelled: its answer is ignored
      }
    });
    ToolApproval decision;
    try {
      decision = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException | CancellationException e) {
      throw new Cancelled();
    } catch (TimeoutException e) {
      decision = ToolApproval.deny(ToolApproval.TIMEOUT, "nobody answered within "
          + timeout.toSeconds() + " s");
    } catch (ExecutionException e) {
      log.debug("the tool approver failed; the call is denied", e.getCause());
      decision = ToolApproval.deny("approver", "the approver failed: " + e.getCause());
    } finally {
      onCancel.close();
    }
    if (ctx.isCancelled()) {
      throw new Cancelled();
    }
    if (decision == null) {
      decision = ToolApproval.deny("approver", "the approver gave no decision");
    }
    if (decision.decision() == ToolApproval.Decision.APPROVED_FOR_SESSION) {
      grants.add(call.name(), decision.scope());
    }
    return decision;
  }

  /** The command line of a {@code run_command} call, or null. */
  public static String command(LlmToolCall call) {
    JsonNode args = call.arguments();
    if (!RunCommandTool.NAME.equals(call.name()) || args == null || !args.isObject()) {
      return null;
    }
    JsonNode c = args.get("command");
    return c != null && c.isTextual() ? c.asText() : null;
  }

  /** What was approved for the rest of one run: a tool, or a tool's command prefix. */
  static final class Grants {
    private final List<String[]> grants = new CopyOnWriteArrayList<>();

    void add(String tool, String prefix) {
      grants.add(new String[] {tool, prefix});
    }

    boolean covers(String tool, String command) {
      for (String[] g : grants) {
        if (g[0].equals(tool) && (g[1] == null || ApprovalPolicy.prefixCovers(g[1], command))) {
          return true;
        }
      }
      return false;
    }
  }
}
