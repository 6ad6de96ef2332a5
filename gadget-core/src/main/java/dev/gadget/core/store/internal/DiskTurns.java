package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatTurn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The turns of a journaled store: the running ones whole in memory; of a finished one only its
 * id, session, {@code seq} and where its whole record is kept ({@link Home}), read from disk
 * when asked for ({@link TurnFiles}, with its cache). So the heap holds about 150 bytes per
 * finished turn, whatever its blocks. Counts the bytes each journal keeps for finished turns, so
 * that journals nothing refers to can be deleted. Not thread-safe: its store holds a lock.
 */
final class DiskTurns implements TurnTable {
  /** A turn: running ({@code journal == 0}) or kept at {@code (journal, offset, length)}. */
  static final class Ref {
    final String id;
    final String sessionId;
    final long seq;
    int journal;
    long offset;
    int length;

    Ref(String id, String sessionId, long seq) {
      this.id = id;
      this.sessionId = sessionId;
      this.seq = seq;
    }

    Home home() {
      return journal == 0 ? null : new Home(journal, offset, length);
    }
  }

  private final TurnFiles files;
  private Map<String, Ref> byId = new HashMap<>();
  private final Map<String, List<Ref>> bySession = new HashMap<>();
  private final TreeMap<String, ChatTurn> running = new TreeMap<>();
  private final Map<Integer, Long> liveBytes = new HashMap<>();
  /** Where the record being applied is kept: set by the store before it applies one. */
  private Home pending;

  DiskTurns(TurnFiles files) {
    this.files = files;
  }

  TurnFiles files() {
    return files;
  }

  /** Tells the next {@link #put} of a finished turn where its record is. */
  void pending(Home home) {
    this.pending = home;
  }

  @Override
  public boolean contains(String id) {
    return byId.containsKey(id);
  }

  @Override
  public ChatTurn get(String id) {
    Object h = handle(id);
    return h == null ? null : resolve(h);
  }

  @Override
  public boolean running(String id) {
    return running.containsKey(id);
  }

  @Override
  public String sessionOf(String id) {
    Ref r = byId.get(id);
    return r == null ? null : r.sessionId;
  }

  /** The turn (running) or its {@link Home} (finished), or null: resolved by {@link #resolve}. */
  Object handle(String id) {
    Ref r = byId.get(id);
    if (r == null) {
      return null;
    }
    return r.journal == 0 ? running.get(id) : r.home();
  }

  /** The session's turns as {@link #handle}s, in {@code seq} order. */
  List<Object> sessionHandles(String sessionId) {
    List<Ref> refs = bySession.get(sessionId);
    if (refs == null) {
      return List.of();
    }
    List<Object> out = new ArrayList<>(refs.size());
    for (Ref r : refs) {
      out.add(r.journal == 0 ? running.get(r.id) : r.home());
    }
    return out;
  }

  /** A handle's turn: safe outside the store's lock. */
  ChatTurn resolve(Object handle) {
    return handle instanceof Home h ? files.read(h) : (ChatTurn) handle;
  }

  @Override
  public void put(ChatTurn t) {
    Home home = pending;
    pending = null;
    if (t.status().isTerminal()) {
      if (home == null) {
        throw new IllegalStateException("a finished turn must be applied from its record");
      }
      putHome(t.id(), t.sessionId(), t.seq(), home);
      files.cache().put(home, t);
    } else {
      Ref r = ref(t.id(), t.sessionId(), t.seq());
      unlive(r);
      r.journal = 0;
      running.put(t.id(), t);
    }
  }

  /**
   * Adds a chat's finished turns as a snapshot's index lists them: in {@code seq} order, none
   * held yet (opening, with no lookup per turn).
   */
  void loadSession(String sessionId, List<Ref> refs) {
    List<Ref> list = bySession.computeIfAbsent(sessionId, k -> new ArrayList<>(refs.size()));
    boolean ordered = list.isEmpty(); // else it holds running turns from the snapshot's records
    int journal = 0;
    long bytes = 0;
    for (Ref r : refs) {
      if (byId.put(r.id, r) != null) {
        throw new IllegalStateException("the turn " + r.id + " is listed twice");
      }
      if (ordered) {
        list.add(r);
      } else {
        insert(list, r);
      }
      if (r.journal != journal) {
        if (bytes > 0) {
          liveBytes.merge(journal, bytes, Long::sum);
        }
        journal = r.journal;
        bytes = 0;
      }
      bytes += r.length;
    }
    if (bytes > 0) {
      liveBytes.merge(journal, bytes, Long::sum);
    }
  }

  /** Makes room for {@code turns} finished turns before an index is loaded. */
  void expect(long turns) {
    if (byId.isEmpty()) {
      byId = new HashMap<>((int) Math.min(Integer.MAX_VALUE / 2, turns * 4 / 3 + 16));
    }
  }

  /** Records that the finished turn {@code id} is kept at {@code home}. */
  void putHome(String id, String sessionId, long seq, Home home) {
    Ref r = ref(id, sessionId, seq);
    unlive(r);
    running.remove(id);
    r.journal = home.journal();
    r.offset = home.offset();
    r.length = home.length();
    liveBytes.merge(r.journal, (long) r.length, Long::sum);
  }

  @Override
  public void removeSession(String sessionId) {
    List<Ref> refs = bySession.remove(sessionId);
    if (refs != null) {
      for (Ref r : refs) {
        byId.remove(r.id);
        running.remove(r.id);
        unlive(r);
      }
    }
  }

  @Override
  public List<ChatTurn> listSession(String sessionId) {
    List<ChatTurn> out = new ArrayList<>();
    for (Object h : sessionHandles(sessionId)) {
      out.add(resolve(h));
    }
    return out;
  }

  @Override
  public List<ChatTurn> unfinished() {
    return new ArrayList<>(running.values());
  }

  /** Only the running turns: the finished ones are in the snapshot's index. */
  @Override
  public void snapshotInto(List<Change> out) {
    running.values().forEach(t -> out.add(new Change.CreateTurn(t)));
  }

  @Override
  public int size() {
    return byId.size();
  }

  /** The sessions with finished turns and those turns' refs, in order: the index to write. */
  Map<String, List<Ref>> finishedBySession() {
    Map<String, List<Ref>> out = new HashMap<>();
    bySession.forEach((s, refs) -> {
      List<Ref> done = new ArrayList<>(refs.size());
      for (Ref r : refs) {
        if (r.journal != 0) {
          done.add(copy(r));
        }
      }
      if (!done.isEmpty()) {
        out.put(s, done);
      }
    });
    return out;
  }

  /** Bytes of journal {@code number} that finished turns are kept in. */
  long liveBytes(int number) {
    return liveBytes.getOrDefault(number, 0L);
  }

  /** Copies of the refs kept in journal {@code number} (safe to read outside the lock). */
  List<Ref> keptIn(int number) {
    List<Ref> out = new ArrayList<>();
    for (Ref r : byId.values()) {
      if (r.journal == number) {
        out.add(copy(r));
      }
    }
    return out;
  }

  private static Ref copy(Ref r) {
    Ref c = new Ref(r.id, r.sessionId, r.seq);
    c.journal = r.journal;
    c.offset = r.offset;
    c.length = r.length;
    return c;
  }

  private Ref ref(String id, String sessionId, long seq) {
    Ref r = byId.get(id);
    if (r != null && r.sessionId.equals(sessionId) && r.seq == seq) {
      return r;
    }
    if (r != null) {
      List<Ref> refs = bySession.get(r.sessionId);
      refs.remove(r);
      if (refs.isEmpty()) {
        bySession.remove(r.sessionId);
      }
      unlive(r);
    }
    Ref fresh = new Ref(id, sessionId, seq);
    if (r != null) {
      fresh.journal = 0;
    }
    byId.put(id, fresh);
    insert(bySession.computeIfAbsent(sessionId, k -> new ArrayList<>(4)), fresh);
    return fresh;
  }

  /** Inserts in (seq, id) order; a new turn usually goes last. */
  private static void insert(List<Ref> refs, Ref r) {
    int at = refs.size();
    while (at > 0 && before(r, refs.get(at - 1))) {
      at--;
    }
    refs.add(at, r);
  }

  private static boolean before(Ref a, Ref b) {
    return a.seq < b.seq || (a.seq == b.seq && a.id.compareTo(b.id) < 0);
  }

  private void unlive(Ref r) {
    if (r.journal != 0) {
      long left = liveBytes.merge(r.journal, (long) -r.length, Long::sum);
      if (left <= 0) {
        liveBytes.remove(r.journal);
      }
      r.journal = 0;
    }
  }
}
