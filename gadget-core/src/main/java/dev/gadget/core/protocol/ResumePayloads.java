package dev.gadget.core.protocol;

/**
 * How a running turn's stream picks up again after its drone's link dropped, or after the
 * server restarted: the server asks from where ({@code resumeStream}), the drone says from where
 * it sends again ({@code streamReplay}) and sends what it still has from there, and the pages of
 * a turn taken back after a restart are told which of its blocks are rebuilt
 * ({@code turnResumed}).
 */
public final class ResumePayloads {
  private ResumePayloads() {}

  /**
   * {@code resumeStream} (server to drone): send the turn's events again from {@code fromSeq},
   * or, when that is {@code null}, from the event after the tool call {@code afterCallId} (the
   * turn's first event when that is {@code null} too).
   *
   * @param turnId the turn the drone runs
   * @param fromSeq the first event wanted, or {@code null}
   * @param afterCallId the call whose {@code toolCall} event the replay follows, or {@code null}
   */
  public record ResumeStream(@Rule(required = true, maxLength = Limits.ID) String turnId,
      Long fromSeq, @Rule(maxLength = Limits.ID) String afterCallId) {}

  /**
   * {@code streamReplay} (drone to server): the turn's events follow from {@code fromSeq}, in
   * order, then its stream goes on as before.
   *
   * @param turnId the turn
   * @param fromSeq the seq of the first event sent again
   * @param complete false when the drone no longer has every event asked for (it keeps a
   *     turn's latest {@code TurnOutbox} events only): the replay starts later than asked
   */
  public record StreamReplay(@Rule(required = true, maxLength = Limits.ID) String turnId,
      long fromSeq, boolean complete) {}

  /**
   * {@code turnResumed} (server to page): the server took the running turn back after a restart.
   * The page drops the turn's blocks from {@code fromBlock} on, and its open block, and applies
   * the events after {@code lastSeq}, which rebuild them.
   *
   * @param turnId the turn
   * @param fromBlock the first block rebuilt
   * @param lastSeq the seq the rebuilt stream follows
   */
  public record TurnResumed(@Rule(required = true, maxLength = Limits.ID) String turnId,
      int fromBlock, long lastSeq) {}
}
