package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/** Every turn in memory: by id, by session in {@code seq} order, and the unfinished ones. */
final class MemoryTurns implements TurnTable {
  private static final Comparator<ChatTurn> TURN_ORDER =
      Comparator.comparingLong(ChatTurn::seq).thenComparing(ChatTurn::id);

  private final Map<String, ChatTurn> turns = new HashMap<>();
  private final Map<String, NavigableSet<ChatTurn>> turnsBySession = new HashMap<>();
  private final NavigableSet<String> unfinished = new TreeSet<>();

  @Override
  public boolean contains(String id) {
    return turns.containsKey(id);
  }

  @Override
  public ChatTurn get(String id) {
    return turns.get(id);
  }

  @Override
  public boolean running(String id) {
    ChatTurn t = turns.get(id);
    return t != null && !t.status().isTerminal();
  }

  @Override
  public String sessionOf(String id) {
    ChatTurn t = turns.get(id);
    return t == null ? null : t.sessionId();
  }

  @Override
  public void put(ChatTurn t) {
    ChatTurn old = turns.put(t.id(), t);
    if (old != null) {
      NavigableSet<ChatTurn> set = turnsBySession.get(old.sessionId());
      set.remove(old);
      if (set.isEmpty()) {
        turnsBySession.remove(old.sessionId());
      }
    }
    turnsBySession.computeIfAbsent(t.sessionId(), k -> new TreeSet<>(TURN_ORDER)).add(t);
    if (t.status() == TurnStatus.PROCESSING) {
      unfinished.add(t.id());
    } else {
      unfinished.remove(t.id());
    }
  }

  @Override
  public void removeSession(String sessionId) {
    NavigableSet<ChatTurn> owned = turnsBySession.remove(sessionId);
    if (owned != null) {
      for (ChatTurn t : owned) {
        turns.remove(t.id());
        unfinished.remove(t.id());
      }
    }
  }

  @Override
  public List<ChatTurn> listSession(String sessionId) {
    NavigableSet<ChatTurn> ordered = turnsBySession.get(sessionId);
    return ordered == null ? List.of() : new ArrayList<>(ordered);
  }

  @Override
  public List<ChatTurn> unfinished() {
    return Indexes.resolve(unfinished, turns::get);
  }

  @Override
  public void snapshotInto(List<Change> out) {
    turns.values().forEach(t -> out.add(new Change.CreateTurn(t)));
  }

  @Override
  public int size() {
    return turns.size();
  }
}
