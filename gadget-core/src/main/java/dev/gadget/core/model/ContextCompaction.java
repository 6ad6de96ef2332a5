package dev.gadget.core.model;

import java.util.Objects;

/**
 * A compaction of a session's context: the oldest rounds summarized by the model so that the
 * conversation fits its context budget. Stored as a {@link TurnBlock.Compaction} block of the turn
 * that made it; the turns after it start from it: the session's first prompt, then
 * {@link #asMessage() the summary}, then (when {@link #promptRepeated()}) the compacting turn's
 * prompt again, then everything from the {@link #keptTurnId() kept} point on, verbatim.
 *
 * @param summary the model's summary of what was left out
 * @param summarized what was summarized, in words (such as {@code "37 messages: 12 turns and 3
 *     rounds of this turn"})
 * @param summarizedMessages how many messages the summary replaces
 * @param tokensBefore the measured tokens of the context before
 * @param tokensAfter the measured tokens of the context after
 * @param keptTurnId the turn where the part kept verbatim starts ({@code null} on the way from the
 *     drone when it is the compacting turn; the server fills it in)
 * @param keptAfterCallId when set, the kept part starts after this tool call's result in
 *     {@code keptTurnId}; when {@code null}, at that turn's prompt, or right after it when
 *     {@code promptRepeated}
 * @param promptRepeated whether the prompt of {@code keptTurnId} (the compacting turn's) was in
 *     the summarized part and follows the summary again, verbatim
 */
public record ContextCompaction(String summary, String summarized, int summarizedMessages,
    int tokensBefore, int tokensAfter, String keptTurnId, String keptAfterCallId,
    boolean promptRepeated) {
  /** How the summary starts when it goes to the model. */
  public static final String SUMMARY_HEADING =
      "[Summary of the earlier conversation, written to save context]\n";

  public ContextCompaction {
    Objects.requireNonNull(summary, "summary");
    Objects.requireNonNull(summarized, "summarized");
  }

  /** This compaction with {@link #keptTurnId()} set to {@code turnId} when it has none. */
  public ContextCompaction withKeptTurnId(String turnId) {
    return keptTurnId != null ? this : new ContextCompaction(summary, summarized,
        summarizedMessages, tokensBefore, tokensAfter, turnId, keptAfterCallId, promptRepeated);
  }

  /** The summary as the model reads it: {@link #SUMMARY_HEADING} then the summary. */
  public String asMessage() {
    return SUMMARY_HEADING + summary;
  }
}
