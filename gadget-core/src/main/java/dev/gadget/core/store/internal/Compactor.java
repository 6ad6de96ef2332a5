package dev.gadget.core.store.internal;

import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a store's journal short: once the current journal has grown past the bound (the larger
 * of the configured minimum and the last snapshot's size, so compacting never costs more than the
 * writes it saves), a background thread, {@code gadget-store-compact}, starts a new journal and
 * writes a snapshot of everything before it (temporary file, sync, rename, sync the directory),
 * then deletes the old journals. A crash at any step leaves a directory that opens with nothing
 * lost: the old snapshot and journals stay until the new snapshot is in place. Thread-safe.
 */
public final class Compactor {
  private static final Logger log = LoggerFactory.getLogger(Compactor.class);

  private final StoreDirectory dir;
  private final Journal journal;
  private final Object storeLock;
  private final IndexedState state;
  private final long minBytes;
  private long threshold;
  private Thread running;
  private boolean closed;

  /**
   * @param storeLock the lock the store holds while it checks, journals and applies a change
   * @param minBytes the smallest journal worth compacting
   * @param snapshotBytes the size of the snapshot the store was loaded from
   */
  public Compactor(StoreDirectory dir, Journal journal, Object storeLock, IndexedState state,
      long minBytes, long snapshotBytes) {
    this.dir = dir;
    this.journal = journal;
    this.storeLock = storeLock;
    this.state = state;
    this.minBytes = minBytes;
    this.threshold = Math.max(minBytes, snapshotBytes);
  }

  /** Starts a compaction if the journal has grown past the bound and none is running. */
  public void maybeCompact() {
    long size = journal.fileBytes();
    synchronized (this) {
      if (closed || running != null || size <= threshold) {
        return;
      }
      running = new Thread(this::compact, "gadget-store-compact");
      running.setDaemon(true);
      running.start();
    }
  }

  /** Compacts now, in the calling thread (for tests and for a clean shutdown). */
  public void compactNow() {
    synchronized (this) {
      if (closed || running != null) {
        return;
      }
      running = Thread.currentThread();
    }
    compact();
  }

  /** Waits (up to {@code millis}) for a running compaction, then refuses new ones. */
  public void close(long millis) {
    Thread t;
    synchronized (this) {
      closed = true;
      t = running;
    }
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void compact() {
    long started = System.nanoTime();
    try {
      int next;
      List<Change> records;
      synchronized (storeLock) {
        next = journal.rollOver();
        records = state.snapshot();
      }
      long bytes = dir.writeSnapshot(records, next);
      dir.deleteJournalsBefore(next);
      synchronized (this) {
        threshold = Math.max(minBytes, bytes);
      }
      log.debug("Compacted the store in {}: {} records, {} bytes, in {} ms", dir.path(),
          records.size(), bytes, (System.nanoTime() - started) / 1_000_000);
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        threshold += minBytes;
      }
      log.warn("Could not compact the store in {} ({}); the journal keeps everything and "
          + "compaction is tried again later", dir.path(), e.toString());
    } finally {
      synchronized (this) {
        running = null;
      }
    }
  }
}
