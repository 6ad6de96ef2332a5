package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.model.ToolCall;
import java.util.ArrayList;
import java.util.List;

/**
 * The most of a session's history a work order carries. The drone's compaction keeps a session's
 * context within about four budgets (docs/CONTEXT.md); a drone that does not compact (an SDK user's
 * own, or one whose compactor fails) would otherwise make every work order carry the whole
 * session. Past {@link #MAX_CHARS}, the oldest earlier turns are left out whole (a tool result is
 * never parted from its call): the session's first prompt stays, then a note saying how many
 * turns were left out, then the most recent turns that fit, and always the last one.
 */
final class HistoryBound {
  /** About four budgets of 32,768 tokens at three characters a token. */
  static final int MAX_CHARS = 400_000;

  private HistoryBound() {}

  /** {@code messages} (a session context, oldest first) within {@code maxChars}. */
  static List<ChatMessage> of(List<ChatMessage> messages, int maxChars) {
    long total = 0;
    for (ChatMessage m : messages) {
      total += chars(m);
    }
    if (total <= maxChars || messages.size() < 2) {
      return messages;
    }
    // Turns start at a prompt: a user message that names its turn.
    List<Integer> starts = new ArrayList<>();
    for (int i = 1; i < messages.size(); i++) {
      ChatMessage m = messages.get(i);
      if (m.role() == Role.USER && m.turnId() != null) {
        starts.add(i);
      }
    }
    if (starts.isEmpty()) {
      return messages;
    }
    // Keep the newest turns that fit beside the first message; always the last turn.
    long kept = chars(messages.get(0));
    int from = messages.size();
    for (int s = starts.size() - 1; s >= 0; s--) {
      int start = starts.get(s);
      long turn = 0;
      for (int i = start; i < from; i++) {
        turn += chars(messages.get(i));
      }
      if (from != messages.size() && kept + turn > maxChars) {
        break;
      }
      kept += turn;
      from = start;
    }
    int left = 0;
    for (int start : starts) {
      if (start < from) {
        left++;
      }
    }
    if (left == 0 && from == starts.get(0)) {
      return messages; // only the first prompt's own rounds are long: nothing to leave out
    }
    List<ChatMessage> out = new ArrayList<>(messages.size() - from + 2);
    out.add(messages.get(0));
    out.add(new ChatMessage(messages.get(from).createdAt(), Role.USER, "[The replies to the "
        + "first prompt and the " + left + " turns after it are left out here: the conversation "
        + "is longer than a work order carries (" + maxChars + " characters).]"));
    out.addAll(messages.subList(from, messages.size()));
    return out;
  }

  private static long chars(ChatMessage m) {
    long n = m.content().length() + (m.thinking() == null ? 0 : m.thinking().length());
    for (ToolCall c : m.toolCalls()) {
      n += c.name().length() + (c.parameters() == null ? 0 : c.parameters().length())
          + (c.response() == null ? 0 : c.response().length());
    }
    for (SignedReasoning r : m.reasoning()) { // carried too, so counted
      n += r.text().length() + (r.signature() == null ? 0 : r.signature().length())
          + (r.data() == null ? 0 : r.data().length());
    }
    return n;
  }
}
