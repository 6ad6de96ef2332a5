package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Seed 002's session context: what a work order carries of the chat session's earlier turns. */
final class SessionContext {
  private SessionContext() {}

  /** Each earlier turn as a user and an assistant message. */
  static List<ChatMessage> of(List<ChatTurn> history) {
    List<ChatMessage> messages = new ArrayList<>();
    for (ChatTurn t : history) {
      messages.add(new ChatMessage(t.createdAt(), Role.USER, t.prompt()));
      StringBuilder thinking = new StringBuilder();
      StringBuilder reply = new StringBuilder();
      for (TurnBlock b : t.blocks()) {
        if (b.isSuperseded()) {
          continue; // a model round redone after a crash: the redone round says it
        }
        if (b instanceof TurnBlock.Thinking th) {
          thinking.append(th.content());
        } else if (b instanceof TurnBlock.Responding r) {
          reply.append(r.content());
        } else if (b instanceof TurnBlock.Diff d && d.content().revertOf() != null) {
          // the model must not believe its changes are still there
          reply.append(reply.length() == 0 ? "" : "\n").append("(the user undid this turn's "
              + "changes to the files)");
        }
      }
      if (t.status() != TurnStatus.FINISHED && t.error() != null) {
        reply.append(reply.length() == 0 ? "" : "\n").append("(turn ended: ")
            .append(t.status().name().toLowerCase()).append(")");
      }
      Instant at = t.finishedAt() == null ? t.createdAt() : t.finishedAt();
      messages.add(ChatMessage.assistant(at, thinking.toString(), reply.toString()));
    }
    return messages;
  }
}
