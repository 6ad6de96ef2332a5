package dev.gadget.core.drone;

import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.WorkOrder;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The contents of {@code .gadget/work-order.json} (seed 001, section 7.3), written before the
 * drone accepts a work order and removed once the server has the turn's end. Goes beyond the
 * seed with a journal of the tool rounds completed so far, so that a retry after a crash resumes
 * after the last completed tool call. The work order is stored without its API key.
 *
 * @param turnId the turn
 * @param chatSessionId its session
 * @param projectId its project
 * @param workOrderId the work order's id
 * @param receivedAt when the drone received it
 * @param prompt the user's prompt
 * @param status {@code processing}, {@code completed} or {@code error}; {@link #STOPPED} once
 *     the drone was stopped during the turn and reported it cancelled
 * @param error the error, for {@code error}; for {@link #STOPPED} the turn's end message
 * @param workOrder the work order, without secrets
 * @param lastSeq the last stream event the drone sent
 * @param journal the completed tool rounds, oldest first
 */
public record WorkOrderCache(
    String turnId,
    String chatSessionId,
    String projectId,
    String workOrderId,
    Instant receivedAt,
    String prompt,
    String status,
    String error,
    WorkOrder workOrder,
    long lastSeq,
    List<Round> journal) {
  public WorkOrderCache {
    Objects.requireNonNull(turnId, "turnId");
    Objects.requireNonNull(workOrder, "workOrder");
    if (workOrder.provider().apiKey() != null) {
      throw new IllegalArgumentException("a cached work order must not hold an API key");
    }
    journal = journal == null ? List.of() : List.copyOf(journal);
  }

  /**
   * The status of a turn that a stopped drone ended as cancelled and reported to the server: if
   * the server did not acknowledge that end, the next start reports it again instead of asking
   * for crash recovery.
   */
  public static final String STOPPED = "stopped";

  /** A new cache entry for {@code order}, received at {@code now}. */
  public static WorkOrderCache of(WorkOrder order, Instant now, long lastSeq) {
    return new WorkOrderCache(order.chatTurn().id(), order.chatSession().id(),
        order.project().id(), order.id(), now, order.chatTurn().prompt(), "processing", null,
        order.withoutSecrets(), lastSeq, List.of());
  }

  /** This entry with one more completed round and the last sequence number sent. */
  public WorkOrderCache withRound(Round round, long lastSeq) {
    List<Round> rounds = new java.util.ArrayList<>(journal);
    rounds.add(round);
    return new WorkOrderCache(turnId, chatSessionId, projectId, workOrderId, receivedAt, prompt,
        status, error, workOrder, lastSeq, rounds);
  }

  /**
   * This entry for a turn ended as cancelled because the drone stopped, with the message and the
   * sequence number of the {@code workOrderComplete} that reported it.
   */
  public WorkOrderCache stopped(String message, long endSeq) {
    return new WorkOrderCache(turnId, chatSessionId, projectId, workOrderId, receivedAt, prompt,
        STOPPED, message, workOrder, endSeq, journal);
  }

  /**
   * One completed round trip: what the model said and the tools it ran, with their results.
   *
   * @param thinking the model's reasoning
   * @param text the model's text
   * @param calls the tool calls with their results
   */
  public record Round(String thinking, String text, List<ToolCall> calls) {
    public Round {
      thinking = thinking == null ? "" : thinking;
      text = text == null ? "" : text;
      calls = calls == null ? List.of() : List.copyOf(calls);
    }
  }
}
