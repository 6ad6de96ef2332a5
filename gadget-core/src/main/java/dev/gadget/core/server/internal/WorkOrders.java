package dev.gadget.core.server.internal;

import dev.gadget.core.Ids;
import dev.gadget.core.agent.SessionContext;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.spi.ChatStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A turn's work order: its project, the session's provider and model, the session's earlier
 * turns as context (bounded), the prompt, the drone's workspace and the session's approval
 * policy. Made when a turn starts, and again for a turn taken back after a restart (so that a
 * crash of its drone can still be retried).
 */
final class WorkOrders {
  private final ChatStore store;
  private final ProviderResolver providers;
  private final ApprovalDesk approvals;

  WorkOrders(ChatStore store, ProviderResolver providers, ApprovalDesk approvals) {
    this.store = store;
    this.providers = providers;
    this.approvals = approvals;
  }

  /** The work order of {@code turn}, whose earlier turns are {@code history}. */
  WorkOrder of(ChatSession session, Project project, ProviderResolver.Resolved llm,
      List<ChatTurn> history, ChatTurn turn, String workspaceId) {
    return new WorkOrder(Ids.next(), WorkOrder.ProjectRef.of(project), llm.config(),
        new WorkOrder.SessionRef(session.id(), session.name(), HistoryBound.of(
            SessionContext.of(history, authors()), HistoryBound.MAX_CHARS)),
        new WorkOrder.TurnRef(turn.id(), turn.mode(), turn.prompt()), workspaceId,
        approvals.policy(session).wireName(), session.createTools(),
        session.toolDeferral());
  }

  /**
   * The work order of a stored turn that ran on the drone of {@code workspaceId}, or empty when
   * its session or project is gone.
   */
  Optional<WorkOrder> rebuild(ChatTurn turn, String workspaceId) {
    Optional<ChatSession> session = store.findSession(turn.sessionId());
    Optional<Project> project = session.flatMap(s -> store.findProject(s.projectId()));
    if (session.isEmpty() || project.isEmpty()) {
      return Optional.empty();
    }
    List<ChatTurn> history = store.listTurns(turn.sessionId()).stream()
        .filter(t -> t.seq() < turn.seq()).toList();
    return Optional.of(of(session.get(), project.get(), providers.resolve(session.get()),
        history, turn, workspaceId));
  }

  /** Looks up the author of prompts, once per user. */
  private Function<String, ChatMessage.Author> authors() {
    Map<String, Optional<ChatMessage.Author>> seen = new HashMap<>();
    return id -> seen.computeIfAbsent(id, k -> store.findUser(k).map(ChatMessage.Author::of))
        .orElse(null);
  }
}
