package dev.gadget.core.agent;

import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.Role;
import java.util.List;
import java.util.Optional;

/**
 * The default {@link Compactor}: the model itself summarizes the oldest rounds.
 *
 * <p>It keeps verbatim the most recent rounds that fit in a share of the budget
 * ({@link #keepShare()}, default 0.3), and always the last round; the messages between the
 * session's first prompt and those go to the model as a transcript (as pruning would send them;
 * when they would not fit the budget, tool results are cut first) with {@link #INSTRUCTIONS}, in
 * one call without tools. The reply is the summary. With no message to summarize, or an empty
 * reply, it leaves the conversation as it is. Immutable and thread-safe.
 */
public final class SummarizingCompactor implements Compactor {
  /** What the model is asked to do with the transcript. */
  public static final String INSTRUCTIONS = "You compact the earlier part of a conversation "
      + "between a user and a coding agent so that the agent can go on with less context. "
      + "Write a summary the agent can continue from, in plain text: every request the user "
      + "made (quote them), the decisions taken and why, the files read, created or changed "
      + "(with their paths and what changed), the commands run and what they showed, errors "
      + "met, and the tasks still open. Keep names, paths and numbers exact. No preamble.";
  /** How the transcript starts. */
  public static final String TRANSCRIPT_HEADING = "The conversation to summarize:\n\n";

  private static final int MIN_MESSAGE_CHARS = 200;

  private final double keepShare;

  /** A compactor that keeps the recent rounds within 30% of the budget. */
  public SummarizingCompactor() {
    this(0.3);
  }

  /**
   * A compactor.
   *
   * @param keepShare the share of the token budget the recent rounds kept verbatim may take,
   *     above 0 and below 1 (the last round is kept whatever its size)
   */
  public SummarizingCompactor(double keepShare) {
    if (!(keepShare > 0 && keepShare < 1)) {
      throw new IllegalArgumentException("keepShare must be above 0 and below 1: " + keepShare);
    }
    this.keepShare = keepShare;
  }

  /** The share of the budget the recent rounds kept verbatim may take. */
  public double keepShare() {
    return keepShare;
  }

  @Override
  public Optional<Compacted> compact(Request r) {
    List<LlmMessage> pruned = r.pruner().prune(r.messages(), Integer.MAX_VALUE);
    int start = r.firstPrompt() + 1;
    int cut = cut(pruned, r, start);
    if (cut <= start || cut == start + 1
        && pruned.get(start).content().startsWith(ContextCompaction.SUMMARY_HEADING)) {
      return Optional.empty(); // nothing, or only the last summary, to summarize
    }
    int maxTokens = Math.max(1024, Math.min(4096, r.tokenBudget() / 4));
    String transcript = transcript(pruned.subList(start, cut),
        Math.max(0, r.tokenBudget() - 1000) * 3L);
    LlmRequest request = LlmRequest.builder(r.modelId(), List.of(
            LlmMessage.system(INSTRUCTIONS), LlmMessage.user(TRANSCRIPT_HEADING + transcript)))
        .params(r.params().withMaxTokens(maxTokens)).build();
    LlmCompletion reply = r.complete(request);
    String summary = reply.text().strip();
    return summary.isEmpty() ? Optional.empty() : Optional.of(new Compacted(cut, summary));
  }

  /** The first message kept: the oldest round start whose tail fits the kept share. */
  private int cut(List<LlmMessage> m, Request r, int start) {
    long keep = (long) (r.tokenBudget() * keepShare);
    long tail = 0;
    int cut = -1;
    for (int i = m.size() - 1; i > start; i--) {
      tail += ContextPruner.estimateTokens(m.get(i));
      if (Compactor.isRoundStart(m, i, r.currentPrompt())) {
        if (cut >= 0 && tail > keep) {
          break;
        }
        cut = i;
      }
    }
    return cut;
  }

  /**
   * The messages as text within about {@code maxChars}: when they are over it, tool results are
   * cut first, to an equal share of what the other messages leave; only when those alone are over
   * it is every message cut to an equal share.
   */
  static String transcript(List<LlmMessage> messages, long maxChars) {
    long total = 0;
    long others = 0;
    int results = 0;
    for (LlmMessage m : messages) {
      int length = text(m, Integer.MAX_VALUE).length();
      total += length;
      if (m.role() == Role.TOOL) {
        results++;
      } else {
        others += length;
      }
    }
    int resultEach = Integer.MAX_VALUE;
    int otherEach = Integer.MAX_VALUE;
    if (total > maxChars && others < maxChars) {
      resultEach = (int) Math.max(MIN_MESSAGE_CHARS, (maxChars - others) / Math.max(1, results));
    } else if (total > maxChars) {
      resultEach = MIN_MESSAGE_CHARS;
      otherEach = (int) Math.max(MIN_MESSAGE_CHARS, maxChars / Math.max(1, messages.size()));
    }
    StringBuilder sb = new StringBuilder();
    for (LlmMessage m : messages) {
      sb.append(text(m, m.role() == Role.TOOL ? resultEach : otherEach)).append("\n\n");
    }
    return sb.toString().strip();
  }

  private static String text(LlmMessage m, int max) {
    StringBuilder sb = new StringBuilder();
    if (m.role() == Role.TOOL) {
      sb.append("TOOL RESULT (").append(m.toolName()).append(", ").append(m.toolCallId())
          .append("): ").append(cut(m.content(), max));
      return sb.toString();
    }
    sb.append(m.role() == Role.USER ? "USER: " : "ASSISTANT: ").append(cut(m.content(), max));
    if (m.thinking() != null && !m.thinking().isEmpty()) {
      sb.append("\nASSISTANT (reasoning): ").append(cut(m.thinking(), max));
    }
    for (LlmToolCall c : m.toolCalls()) {
      sb.append("\nASSISTANT called ").append(c.name()).append(' ')
          .append(cut(c.arguments().toString(), max)).append(" [").append(c.id()).append(']');
    }
    return sb.toString();
  }

  private static String cut(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int head = max * 2 / 3;
    int tail = max - head;
    return s.substring(0, head) + " [... " + (s.length() - max) + " chars left out ...] "
        + s.substring(s.length() - tail);
  }
}
