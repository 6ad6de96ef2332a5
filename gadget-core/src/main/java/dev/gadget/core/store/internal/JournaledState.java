package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatTurn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of a journaled store with its two paths: a write is checked against the state,
 * journaled and applied under one lock (so journal order is state order), then awaits its sync
 * outside the lock; a read answers under the lock, then awaits the sync of every write it may
 * reflect: all of them, or for a read of entities only the writes that were no turn's, for a read
 * of a session's turns those and that session's turn writes. Finished turns are read from disk
 * outside the lock. Also starts the store (converting, loading the snapshot and its index and
 * replaying the journals since as metadata) and compacts it.
 */
public final class JournaledState {
  private static final Logger log = LoggerFactory.getLogger(JournaledState.class);

  private final Object lock = new Object();
  private final TurnFiles files;
  private final DiskTurns turns;
  private final IndexedState state;
  /** The last record of a write that was no turn's (users, sessions, …): guarded by lock. */
  private long othersAppended;
  /** Each session's last record of a write to its turns: guarded by lock. */
  private final Map<String, Long> sessionAppended = new HashMap<>();
  private final Journal journal;
  private final Compactor compactor;
  private volatile boolean closed;

  /**
   * Converts {@code dir} if it holds the format before, loads its snapshot and index and replays
   * its journals since as metadata; finished turns are then read from disk through a cache of
   * {@code cacheBytes}.
   */
  public JournaledState(StoreDirectory dir, long compactAfterBytes, Duration syncTimeout,
      long cacheBytes) {
    long started = System.nanoTime();
    StoreConverter.convertIfOld(dir, cacheBytes);
    this.files = new TurnFiles(dir, new TurnCache(cacheBytes));
    DecoderWarmUp.start();
    this.turns = new DiskTurns(files);
    this.state = new IndexedState(turns);
    StoreLoader.Loaded loaded;
    try {
      loaded = StoreLoader.load(dir, state, turns);
    } catch (RuntimeException e) {
      files.close();
      throw e;
    }
    this.journal = Journal.open(dir, loaded, syncTimeout);
    this.compactor = new Compactor(dir, journal, lock, state, turns, compactAfterBytes,
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
        change = state.wholeTurns(change);
        String session = turnSession(change);
        byte[] record = RecordCodec.encode(change);
        position = journal.append(record);
        turns.pending(new Home(journal.number(), journal.lastOffset(), record.length));
        try {
          state.apply(change);
        } finally {
          turns.pending(null);
        }
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

  /** The turn {@code id}: looked up under the lock, read from disk (if finished) outside it. */
  public Optional<ChatTurn> findTurn(String id) {
    return readTurns(null, id, () -> turns.handle(id),
        h -> h == null ? Optional.empty() : Optional.of(turns.resolve(h)));
  }

  /** The session's turns: looked up under the lock, the finished ones read outside it. */
  public List<ChatTurn> listTurns(String sessionId) {
    return readTurns(sessionId, null, () -> turns.sessionHandles(sessionId), handles -> {
      List<ChatTurn> out = new ArrayList<>(handles.size());
      for (Object h : handles) {
        out.add(turns.resolve(h));
      }
      return out;
    });
  }

  /**
   * Looks up turns under the lock, then waits for that session's turn writes and the other
   * writes only, then reads them: from memory, the cache or one positioned read each. If a
   * journal is deleted meanwhile (the turn was deleted or moved), looks them up again.
   */
  private <H, T> T readTurns(String sessionId, String turnId, Supplier<H> lookup,
      Function<H, T> read) {
    for (int attempt = 0; ; attempt++) {
      H handles;
      long position;
      synchronized (lock) {
        checkOpen();
        handles = lookup.get();
        String session = sessionId != null ? sessionId : state.sessionOfTurn(turnId);
        position = Math.max(othersAppended,
            session == null ? 0 : sessionAppended.getOrDefault(session, 0L));
      }
      journal.awaitDurable(position);
      try {
        return read.apply(handles);
      } catch (TurnFiles.GoneException e) {
        if (attempt >= 10) {
          throw new IllegalStateException("the turns of a chat kept moving while read", e);
        }
      }
    }
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
    if (change instanceof Change.CreateTurn c) {
      return c.turn().sessionId();
    } else if (change instanceof Change.TurnChange c) {
      // a turn not found is a write that changes nothing but is counted with all the others
      return state.sessionOfTurn(c.turnId());
    }
    return null;
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
    files.close();
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("JournaledChatStore is closed");
    }
  }
}
