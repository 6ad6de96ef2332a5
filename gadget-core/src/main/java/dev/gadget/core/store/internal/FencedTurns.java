package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.spi.StoreException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The in-memory store's fenced turn writes ({@code ChatStore#claimTurn} and the fenced
 * {@code appendBlock}, {@code saveBlock}, {@code finalizeTurn}; docs/CLUSTER.md "Fencing") over
 * its {@link IndexedState}, with the turns' fences by session and then turn. A turn without a
 * fence accepts any; a write with fence f is made only when the turn holds none or one <= f, and
 * raises it to f; a claim by a holder ({@code ChatStore#claimTurn(String, long, String)}) takes
 * an equal fence only when that holder claimed it. Checks come in this order: the arguments,
 * the turn missing ({@code NOT_FOUND}), a greater fence ({@code FENCED}), then the plain write's
 * own.
 *
 * <p>The fences are kept here, not in the state: the journaled store does not fence, and a fence
 * is never journaled. Deleting a session or a project through this class drops its turns'
 * fences. Not thread-safe: its store holds a lock.
 */
public final class FencedTurns {
  private final IndexedState state;
  private final Map<String, Map<String, Long>> bySession = new HashMap<>();
  /** Per turn, the last claim by a holder: its fence and holder. */
  private final Map<String, Claim> claims = new HashMap<>();

  private record Claim(long fence, String holder) {}

  public FencedTurns(IndexedState state) {
    this.state = state;
  }

  public void claimTurn(String turnId, long fence) {
    String sessionId = existingSession(turnId);
    check(sessionId, turnId, fence);
    raise(sessionId, turnId, fence);
  }

  /** A claim by {@code holder}: strict, but for a fence this holder claimed already. */
  public void claimTurn(String turnId, long fence, String holder) {
    String sessionId = existingSession(turnId);
    check(sessionId, turnId, fence);
    Long held = bySession.getOrDefault(sessionId, Map.of()).get(turnId);
    if (held != null && held == fence && !new Claim(fence, holder).equals(claims.get(turnId))) {
      throw StoreException.fenced(turnId, held, fence);
    }
    raise(sessionId, turnId, fence);
    claims.put(turnId, new Claim(fence, holder));
  }

  public void appendBlock(String turnId, TurnBlock block, long fence) {
    Change change = state.checkAppendBlock(turnId, block);
    String sessionId = existingSession(turnId);
    check(sessionId, turnId, fence);
    if (state.apply(change)) {
      raise(sessionId, turnId, fence);
    }
  }

  public void saveBlock(String turnId, TurnBlock block, long fence) {
    Turns.requireSavable(Objects.requireNonNull(block, "block"));
    String sessionId = existingSession(turnId);
    check(sessionId, turnId, fence);
    state.apply(state.checkSaveBlock(turnId, block));
    raise(sessionId, turnId, fence);
  }

  /** As the plain one, {@code false} for a turn that does not exist or has ended. */
  public boolean finalizeTurn(String turnId, TurnStatus status, TurnStats stats, String error,
      Instant finishedAt, long fence) {
    Change change = state.checkFinalizeTurn(turnId, status, stats, error, finishedAt);
    String sessionId = state.sessionOfTurn(turnId);
    if (sessionId == null) {
      return false;
    }
    check(sessionId, turnId, fence);
    if (!state.apply(change)) {
      return false;
    }
    raise(sessionId, turnId, fence);
    return true;
  }

  /** Deletes the session (see {@code ChatStore#deleteSession}) and its turns' fences. */
  public boolean deleteSession(String sessionId) {
    boolean deleted = state.apply(state.checkDeleteSession(sessionId));
    if (deleted) {
      forget(bySession.remove(sessionId));
    }
    return deleted;
  }

  /** Deletes the project (see {@code ChatStore#deleteProject}) and its turns' fences. */
  public boolean deleteProject(String projectId) {
    List<ChatSession> sessions = state.findProject(projectId)
        .map(p -> state.listSessions(p.userId(), p.id())).orElse(List.of());
    boolean deleted = state.apply(state.checkDeleteProject(projectId));
    if (deleted) {
      sessions.forEach(s -> forget(bySession.remove(s.id())));
    }
    return deleted;
  }

  private void forget(Map<String, Long> turns) {
    if (turns != null) {
      claims.keySet().removeAll(turns.keySet());
    }
  }

  private String existingSession(String turnId) {
    String sessionId = state.sessionOfTurn(turnId);
    if (sessionId == null) {
      throw new StoreException(StoreException.Reason.NOT_FOUND, "chat turn " + turnId
          + " not found");
    }
    return sessionId;
  }

  private void check(String sessionId, String turnId, long fence) {
    Map<String, Long> turns = bySession.get(sessionId);
    Long held = turns == null ? null : turns.get(turnId);
    if (held != null && held > fence) {
      throw StoreException.fenced(turnId, held, fence);
    }
  }

  private void raise(String sessionId, String turnId, long fence) {
    bySession.computeIfAbsent(sessionId, k -> new HashMap<>()).merge(turnId, fence, Math::max);
  }
}
