package dev.gadget.core.drone.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.ApprovalRequest;
import dev.gadget.core.agent.ToolApprover;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.protocol.ApprovalPayloads;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drone's {@link ToolApprover} for one turn: sends each waiting call to the server
 * ({@code approvalRequest}) and again every interval until it is decided (a request or a decision
 * lost with a connection is asked for again; the server answers a decided call in the ack), and
 * completes the call's stage with the decision the ack or {@code approvalDecided} brings. A call
 * the server said it waits for is denied here too once that time and a grace period have
 * passed without a word.
 */
final class DroneApprovals implements ToolApprover {
  private static final Logger log = LoggerFactory.getLogger(DroneApprovals.class);
  /** How long after the server's own deadline the drone gives up on hearing from it. */
  static final Duration GRACE = Duration.ofSeconds(30);

  private final String turnId;
  private final ServerLink link;
  private final Duration resendEvery;
  private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();

  DroneApprovals(String turnId, ServerLink link, Duration resendEvery) {
    this.turnId = turnId;
    this.link = link;
    this.resendEvery = resendEvery;
  }

  /** One call waiting for its decision. */
  private final class Waiting {
    final ApprovalPayloads.ApprovalRequest request;
    final CompletableFuture<ToolApproval> decision = new CompletableFuture<>();
    /** When the drone denies it by itself (epoch millis; Long.MAX_VALUE until acked). */
    final AtomicLong giveUpAt = new AtomicLong(Long.MAX_VALUE);
    volatile ScheduledFuture<?> resend;

    Waiting(ApprovalPayloads.ApprovalRequest request) {
      this.request = request;
    }

    void send() {
      if (decision.isDone()) {
        return;
      }
      if (System.currentTimeMillis() > giveUpAt.get()) {
        complete(ToolApproval.deny(ToolApproval.TIMEOUT,
            "no decision reached the drone in time"));
        return;
      }
      link.emitWithAck(Protocol.APPROVAL_REQUEST, request).ifPresent(sent ->
          sent.whenComplete((args, failure) -> {
            if (failure != null || args == null || args.isEmpty()) {
              return; // sent again at the next interval
            }
            try {
              ApprovalPayloads.ApprovalAck ack = Protocol.payload(args, ApprovalPayloads.ApprovalAck.class);
              if (ack.approval() != null) {
                complete(ack.approval());
              } else {
                giveUpAt.set(System.currentTimeMillis() + ack.timeoutMs() + GRACE.toMillis());
              }
            } catch (IllegalArgumentException e) {
              log.warn("the server's answer to an approval request does not fit: {}",
                  e.getMessage());
            }
          }));
    }

    void complete(ToolApproval approval) {
      if (decision.complete(approval)) {
        stop();
      }
    }

    void stop() {
      waiting.remove(request.callId(), this);
      ScheduledFuture<?> r = resend;
      if (r != null) {
        r.cancel(false);
      }
    }
  }

  @Override
  public CompletionStage<ToolApproval> review(ApprovalRequest request) {
    Waiting w = new Waiting(new ApprovalPayloads.ApprovalRequest(turnId, request.callId(),
        request.toolName(), request.parameters(), request.command()));
    waiting.put(request.callId(), w);
    // A cancel of the run cancels the stage: stop asking.
    w.decision.whenComplete((d, e) -> w.stop());
    w.resend = link.repeat(w::send, resendEvery);
    if (w.decision.isDone()) {
      w.resend.cancel(false); // decided before the timer was kept: stop() could not cancel it
    }
    w.send();
    return w.decision;
  }

  /** {@code approvalDecided} from the server, for this turn. */
  void decided(ApprovalPayloads.ApprovalDecided event) {
    Waiting w = waiting.get(event.callId());
    if (w != null) {
      w.complete(event.approval());
    }
  }

  /** Reads an {@code approvalDecided} payload. */
  static ApprovalPayloads.ApprovalDecided read(List<JsonNode> args) {
    return Protocol.payload(args, ApprovalPayloads.ApprovalDecided.class);
  }
}
