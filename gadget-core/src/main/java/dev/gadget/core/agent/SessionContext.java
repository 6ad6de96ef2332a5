package dev.gadget.core.agent;

import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ContextCompaction;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Seed 002's session context: what a work order carries of the chat session's earlier turns, as
 * the model saw them. Each turn is its prompt (with its user, seed 001), then each model round as
 * an assistant message (its reasoning, its text, its tool calls) followed by one tool message per
 * call, paired by call id. Texts of one round are joined by a blank line. After a compaction, the
 * context starts from it, as the drone that made it went on (see {@link ContextCompaction}).
 *
 * <p>The server builds each work order's context with it; an application that keeps its own
 * turns (such as gadget-acp's sessions) builds the next {@link AgentRequest#context()} the same
 * way. Pure and thread-safe.
 */
public final class SessionContext {
  /** What the model reads for a call whose turn ended before the tool gave a result. */
  public static final String NO_RESULT = "(no result: the turn ended before this tool finished)";

  private SessionContext() {}

  /**
   * The context of the turns of {@code history}, oldest first.
   *
   * @param history the session's turns, in {@code seq} order, each with its blocks
   * @param authors the author of a user id's prompts ({@code null} from it when unknown)
   */
  public static List<ChatMessage> of(List<ChatTurn> history,
      Function<String, ChatMessage.Author> authors) {
    List<ChatMessage> messages = new ArrayList<>();
    if (!compacted(history, authors, messages)) {
      messages.clear();
      for (ChatTurn t : history) {
        messages.add(prompt(t, authors));
        rounds(t, t.blocks(), messages);
      }
    }
    return messages;
  }

  /**
   * The context from the latest compaction on, as the drone that made it went on: the first
   * prompt, the summary, the compacting turn's prompt again when it was summarized, then
   * everything from the kept point. {@code false} when there is no compaction, or its kept point
   * is not in the history.
   */
  private static boolean compacted(List<ChatTurn> history,
      Function<String, ChatMessage.Author> authors, List<ChatMessage> out) {
    int ct = -1;
    TurnBlock.Compaction block = null;
    for (int i = history.size() - 1; i >= 0 && block == null; i--) {
      List<TurnBlock> blocks = history.get(i).blocks();
      for (int j = blocks.size() - 1; j >= 0 && block == null; j--) {
        if (blocks.get(j) instanceof TurnBlock.Compaction c) {
          block = c;
          ct = i;
        }
      }
    }
    if (block == null) {
      return false;
    }
    ContextCompaction c = block.content();
    int k = -1;
    for (int i = 0; i <= ct; i++) {
      if (history.get(i).id().equals(c.keptTurnId())) {
        k = i;
      }
    }
    if (k < 0) {
      return false;
    }
    ChatTurn compacting = history.get(ct);
    out.add(prompt(history.get(0), authors));
    out.add(new ChatMessage(block.createdAt(), Role.USER, c.asMessage(), null, List.of(), null,
        null, compacting.id(), null));
    if (c.promptRepeated() && ct != 0) {
      out.add(prompt(compacting, authors));
    }
    ChatTurn kept = history.get(k);
    List<TurnBlock> blocks = kept.blocks();
    if (c.keptAfterCallId() != null) {
      int at = -1;
      for (int j = 0; j < blocks.size(); j++) {
        if (blocks.get(j) instanceof TurnBlock.Tool tool
            && tool.content().callId().equals(c.keptAfterCallId())) {
          at = j;
        }
      }
      if (at < 0) {
        return false;
      }
      blocks = blocks.subList(at + 1, blocks.size());
    } else if (!c.promptRepeated() && k != 0) {
      out.add(prompt(kept, authors));
    }
    rounds(kept, blocks, out);
    for (int i = k + 1; i < history.size(); i++) {
      out.add(prompt(history.get(i), authors));
      rounds(history.get(i), history.get(i).blocks(), out);
    }
    return true;
  }

  private static ChatMessage prompt(ChatTurn t, Function<String, ChatMessage.Author> authors) {
    return new ChatMessage(t.createdAt(), Role.USER, t.prompt(), null, List.of(), null, null,
        t.id(), authors.apply(t.userId()));
  }

  /** The model rounds of {@code blocks} (of turn {@code t}), then how the turn ended. */
  private static void rounds(ChatTurn t, List<TurnBlock> blocks, List<ChatMessage> out) {
    Round round = null;
    for (TurnBlock b : blocks) {
      if (b.isSuperseded()) {
        continue; // a model round redone after a crash: the redone round says it
      }
      if (b instanceof TurnBlock.Tool tool) {
        if (round == null) {
          round = new Round(b.createdAt());
        }
        round.calls.add(tool.content());
      } else if (b instanceof TurnBlock.Thinking || b instanceof TurnBlock.Responding) {
        if (round == null || !round.calls.isEmpty()) {
          flush(t, round, out);
          round = new Round(b.createdAt());
        }
        if (b instanceof TurnBlock.Thinking th) {
          join(round.thinking, th.content());
          round.reasoning.addAll(th.reasoning());
        } else {
          join(round.text, ((TurnBlock.Responding) b).content());
        }
      }
    }
    if (t.status() != TurnStatus.FINISHED && t.error() != null && t.status().isTerminal()) {
      round = note(t, round, out, "(turn ended: " + t.status().name().toLowerCase() + ")");
    }
    if (blocks.stream().anyMatch(b -> b instanceof TurnBlock.Diff d
        && d.content().revertOf() != null)) {
      // the model must not believe its changes are still there
      round = note(t, round, out, "(the user undid this turn's changes to the files)");
    }
    flush(t, round, out);
  }

  /** Adds {@code note} to the turn's last text round (a new one after tool calls). */
  private static Round note(ChatTurn t, Round round, List<ChatMessage> out, String note) {
    if (round == null || !round.calls.isEmpty()) {
      flush(t, round, out);
      round = new Round(t.finishedAt() == null ? t.createdAt() : t.finishedAt());
    }
    join(round.text, note);
    return round;
  }

  private static void join(StringBuilder sb, String text) {
    if (text.isEmpty()) {
      return;
    }
    if (sb.length() > 0) {
      sb.append("\n\n");
    }
    sb.append(text);
  }

  private static void flush(ChatTurn t, Round r, List<ChatMessage> out) {
    if (r == null || (r.calls.isEmpty() && r.text.length() == 0 && r.thinking.length() == 0)) {
      return;
    }
    List<ToolCall> calls = new ArrayList<>();
    for (ToolCall c : r.calls) {
      calls.add(new ToolCall(c.callId(), c.name(), c.parameters(), null));
    }
    out.add(new ChatMessage(r.at, Role.ASSISTANT, r.text.toString(), r.thinking.toString(),
        calls, null, null, t.id(), null, r.reasoning));
    for (ToolCall c : r.calls) {
      out.add(new ChatMessage(r.at, Role.TOOL, c.response() == null ? NO_RESULT : c.response(),
          null, List.of(), c.callId(), c.name(), t.id(), null));
    }
  }

  private static final class Round {
    final Instant at;
    final StringBuilder thinking = new StringBuilder();
    final StringBuilder text = new StringBuilder();
    final List<ToolCall> calls = new ArrayList<>();
    final List<SignedReasoning> reasoning = new ArrayList<>();

    Round(Instant at) {
      this.at = at;
    }
  }
}
