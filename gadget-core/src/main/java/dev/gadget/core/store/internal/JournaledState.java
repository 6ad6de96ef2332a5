package dev.gadget.core.store.internal;

import java.time.Duration;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of a journaled store with its two paths: a write is checked against the state,
 * journaled and applied under one lock (so journal order is state order), then awaits its sync
 * outside the lock; a read answers under the lock, then awaits the sync of every write it may
 * reflect. Also starts the store (loading the snapshot and journals) and compacts it.
 */
public final class JournaledState {
  private static final Logger log = LoggerFactory.getLogger(JournaledState.class);

  private final Object lock = new Object();
  private final IndexedState state = new IndexedState();
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
        position = journal.append(RecordCodec.encode(change));
        state.apply(change);
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
    T result;
    long position;
    synchronized (lock) {
      checkOpen();
      result = query.apply(state);
      position = journal.appended();
    }
    journal.awaitDurable(position);
    return result;
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
