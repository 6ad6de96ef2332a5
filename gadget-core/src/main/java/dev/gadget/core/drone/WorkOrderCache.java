package dev.gadget.core.drone;

import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
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
 * @param status {@code processing} while the turn runs; once it ended, until the server
 *     acknowledges that end, {@link #COMPLETED} (finished or cancelled), {@link #ERROR} (error
 *     or interrupted) or {@link #STOPPED} (the drone was stopped during the turn and reported it
 *     cancelled)
 * @param error the turn's end message: the error, for {@link #ERROR}; why, for a cancelled turn
 * @param workOrder the work order, without secrets
 * @param lastSeq the last stream event the drone sent
 * @param journal the completed tool rounds, oldest first
 * @param pending the round whose tools are running: what the model said and the calls started so
 *     far, each with its result once it has one; a call without a result was running when the
 *     drone stopped and is never run again (see {@link Round#interrupted()}); {@code null} while
 *     the model streams
 * @param endStatus once the turn ended, its status as reported to the server, else {@code null}
 * @param stats once the turn ended, its stats as reported, else {@code null}
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
    List<Round> journal,
    Round pending,
    TurnStatus endStatus,
    TurnStats stats) {
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
  /** The status of a turn that ended finished or cancelled (seed 001's {@code completed}). */
  public static final String COMPLETED = "completed";
  /** The status of a turn that ended in an error (seed 001's {@code error}). */
  public static final String ERROR = "error";

  /**
   * Whether the turn ended (its end is reported, waiting for the server's acknowledgement): a
   * next start reports that end again instead of asking for crash recovery.
   */
  public boolean ended() {
    return STOPPED.equals(status) || COMPLETED.equals(status) || ERROR.equals(status);
  }

  /**
   * This entry for a turn that ended with {@code status}, {@code stats} and {@code message},
   * reported by the {@code workOrderComplete} numbered {@code endSeq}.
   */
  public WorkOrderCache ended(TurnStatus status, TurnStats stats, String message, long endSeq) {
    String state = status == TurnStatus.FINISHED || status == TurnStatus.CANCELLED
        ? COMPLETED : ERROR;
    return new WorkOrderCache(turnId, chatSessionId, projectId, workOrderId, receivedAt, prompt,
        state, message, workOrder, endSeq, journal, pending, status, stats);
  }

  /** A new cache entry for {@code order}, received at {@code now}. */
  public static WorkOrderCache of(WorkOrder order, Instant now, long lastSeq) {
    return new WorkOrderCache(order.chatTurn().id(), order.chatSession().id(),
        order.project().id(), order.id(), now, order.chatTurn().prompt(), "processing", null,
        order.withoutSecrets(), lastSeq, List.of(), null, null, null);
  }

  /**
   * This entry with one more completed round (and no pending round) and the last sequence number
   * sent.
   */
  public WorkOrderCache withRound(Round round, long lastSeq) {
    List<Round> rounds = new java.util.ArrayList<>(journal);
    rounds.add(round);
    return new WorkOrderCache(turnId, chatSessionId, projectId, workOrderId, receivedAt, prompt,
        status, error, workOrder, lastSeq, rounds, null, endStatus, stats);
  }

  /** This entry with {@code round} as the round whose tools are running, and the last seq sent. */
  public WorkOrderCache withPending(Round round, long lastSeq) {
    return new WorkOrderCache(turnId, chatSessionId, projectId, workOrderId, receivedAt, prompt,
        status, error, workOrder, lastSeq, journal, Objects.requireNonNull(round, "round"),
        endStatus, stats);
  }

  /**
   * The rounds to resume after: the completed ones, then the pending one with every call that
   * has no result marked {@link Round#interrupted() interrupted}.
   */
  public List<Round> resumable() {
    if (pending == null) {
      return journal;
    }
    List<Round> rounds = new java.util.ArrayList<>(journal);
    rounds.add(pending.interrupted());
    return rounds;
  }

  /**
   * This entry for a turn ended as cancelled because the drone stopped, with the message and the
   * sequence number of the {@code workOrderComplete} that reported it.
   */
  public WorkOrderCache stopped(String message, long endSeq) {
    return new WorkOrderCache(turnId, chatSessionId, projectId, workOrderId, receivedAt, prompt,
        STOPPED, message, workOrder, endSeq, journal, pending, TurnStatus.CANCELLED, null);
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

    /**
     * What the model reads for a tool whose start was journaled but whose result was not: it was
     * not run again, and may have partly run.
     */
    public static final String INTERRUPTED = "interrupted: the drone stopped while this tool "
        + "ran, so it may have partly run (a command's process tree was killed). It was not run "
        + "again: check what it did and decide whether to run it again.";

    /** This round with every call that has no result given {@link #INTERRUPTED} as its result. */
    public Round interrupted() {
      List<ToolCall> done = new java.util.ArrayList<>();
      for (ToolCall c : calls) {
        done.add(c.response() == null ? c.withFailure(INTERRUPTED) : c);
      }
      return new Round(thinking, text, done);
    }

    /** The calls of this round that have no result (were running when the drone stopped). */
    public List<ToolCall> unfinished() {
      return calls.stream().filter(c -> c.response() == null).toList();
    }
  }
}
