package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatTurn;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of a journaled store with its two paths: a write is checked against the state,
 * journaled and applied under one lock (so journal order is state order), then awaits its sync
 * outside the lock; a read answers under the lock, then awaits the sync of every write it may
 * reflect: all of them, or for a read of entities only the writes that were no turn's, for a read
 * of a session's turns those and that session's turn writes. Also starts the store (loading the snapshot and journals) and compacts it.
 */
public final class JournaledState {
  private static final Logger log = LoggerFactory.getLogger(JournaledState.class);

  private final Object lock = new Object();
  private final IndexedState state = new IndexedState();
  /** The last record of a write that was no turn's (users, sessions, …): guarded by lock. */
  private long othersAppended;
  /** Each session's last record of a write to its turns: guarded by lock. */
  private final Map<String, Long> sessionAppended = new HashMap<>();
  private final Journal journal;
  private final Compactor compactor;
  private volatile boolean closed;

  /** Loads the snapshot and replays the journals of {@code dir}. */
  public JournaledState(StoreDirectory dir, long compactAfterBytes, Duration syncTimeout) {
    long started = System.nanoTime();
    StoreLoader.Loaded loaded = StoreLoader.load(dir, state);
    this.journal = Journal.open(dir, loaded, syncTimeout);
    this.compactor = new Compactor(dir, journal, lock, state, compactAfterBytes,
        loaded.snapshotBytes());
    log.debug("Opened the store in {} ({}) in {} ms", dir.path(), state.summary(),
        (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * Checks a write against the state, journals it, applies it (all under the lock), then waits
   * outside the lock for the journal's sync to cover it.
   *
   * @return whether anything changed
   */
  public boolean write(Function<IndexedState, Change> check) {
    Change change;
    long position;
    synchronized (lock) {
      checkOpen();
      change = check.apply(state);
      if (change == null) {
        position = journal.appended();
      } else {
        String session = turnSession(change);
        position = journal.append(RecordCodec.encode(change));
        state.apply(change);
        if (session != null) {
          sessionAppended.put(session, position);
        } else {
          othersAppended = position;
          if (change instanceof Change.DeleteSession d) {
            sessionAppended.remove(d.sessionId());
          }
        }
      }
    }
    journal.awaitDurable(position);
    if (change != null) {
      compactor.maybeCompact();
    }
    return change != null;
  }

  /** Reads under the lock, then waits until every write the answer may reflect is on disk. */
  public <T> T read(Function<IndexedState, T> query) {
    return readThenAwait(query, () -> journal.appended());
  }

  /**
   * Reads what no turn write changes (users, tokens, projects, sessions, drones, providers,
   * usage) under the lock, then waits only for the writes of those: a stream of block writes of
   * running turns does not hold it up.
   */
  public <T> T readEntities(Function<IndexedState, T> query) {
    return readThenAwait(query, () -> othersAppended);
  }

  /**
   * Reads the turns of {@code sessionId} (the session of the turn {@code turnId} when the
   * session is null), then waits for that session's turn writes and the other writes only.
   */
  public <T> T readTurns(String sessionId, String turnId, Function<IndexedState, T> query) {
    return readThenAwait(query, () -> {
      String session = sessionId != null ? sessionId
          : state.findTurn(turnId).map(ChatTurn::sessionId).orElse(null);
      return Math.max(othersAppended,
          session == null ? 0 : sessionAppended.getOrDefault(session, 0L));
    });
  }

  /**
   * Answers {@code query} under the lock with the journal position {@code upTo} gives (also
   * under it), then waits outside it until that position is on disk.
   */
  private <T> T readThenAwait(Function<IndexedState, T> query, LongSupplier upTo) {
    T result;
    long position;
    synchronized (lock) {
      checkOpen();
      result = query.apply(state);
      position = upTo.getAsLong();
    }
    journal.awaitDurable(position);
    return result;
  }

  /** The session whose turns {@code change} writes, or null for a write that is no turn's. */
  private String turnSession(Change change) {
    String turnId;
    if (change instanceof Change.CreateTurn c) {
      return c.turn().sessionId();
    } else if (change instanceof Change.AppendBlock c) {
      turnId = c.turnId();
    } else if (change instanceof Change.SaveBlock c) {
      turnId = c.turnId();
    } else if (change instanceof Change.SetTurnDrone c) {
      turnId = c.turnId();
    } else if (change instanceof Change.FinalizeTurn c) {
      turnId = c.turnId();
    } else {
      return null;
    }
    // a turn not found is a write that changes nothing but is counted with all the others
    return state.findTurn(turnId).map(ChatTurn::sessionId).orElse(null);
  }

  /** Writes a snapshot now and deletes the journals it replaces. */
  public void compactNow() {
    checkOpen();
    compactor.compactNow();
  }

  /**
   * Refuses every later call, waits for a running compaction, syncs the journal and closes it.
   * Idempotent.
   */
  public void close() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    compactor.close(60_000);
    journal.close();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("JournaledChatStore is closed");
    }
  }
}
