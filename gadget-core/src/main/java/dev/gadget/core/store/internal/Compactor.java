package dev.gadget.core.store.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a store's journal short and its directory free of what was deleted: once the current
 * journal has grown past the bound (the larger of the configured minimum and a quarter of the
 * last snapshot's size with its index: a snapshot holds no blocks, so it is small, and the
 * journal since it is what opening reads), a background thread, {@code
 * gadget-store-compact}:
 *
 * <ol>
 *   <li>copies the finished turns still kept in an older journal that is less than half live
 *       (its other records are blocks of turns since finished, deleted chats, replaced turns) to
 *       the current journal, at most the configured minimum of bytes a time, so that journal can
 *       go;
 *   <li>starts a new journal and writes a snapshot of all but the finished turns as of then,
 *       with the index of where each finished turn is kept (index, sync, temporary file, sync,
 *       rename, sync the directory);
 *   <li>once the writes that emptied them are on disk, deletes the older journals that keep no
 *       finished turn.
 * </ol>
 *
 * A crash at any step leaves a directory that opens with nothing lost: the old snapshot stays
 * until the new one is renamed over it, a copied turn is kept in both places until the journal
 * it was copied from is deleted, and journals are deleted only once nothing refers to them.
 * Thread-safe.
 */
public final class Compactor {
  private static final Logger log = LoggerFactory.getLogger(Compactor.class);

  private final StoreDirectory dir;
  private final Journal journal;
  private final Object storeLock;
  private final IndexedState state;
  private final DiskTurns turns;
  private final long minBytes;
  private long threshold;
  private Thread running;
  private boolean closed;

  /**
   * @param storeLock the lock the store holds while it checks, journals and applies a change
   * @param minBytes the smallest journal worth compacting
   * @param snapshotBytes the size of the snapshot the store was loaded from
   */
  Compactor(StoreDirectory dir, Journal journal, Object storeLock, IndexedState state,
      DiskTurns turns, long minBytes, long snapshotBytes) {
    this.dir = dir;
    this.journal = journal;
    this.storeLock = storeLock;
    this.state = state;
    this.turns = turns;
    this.minBytes = minBytes;
    this.threshold = bound(minBytes, snapshotBytes);
  }

  private static long bound(long minBytes, long snapshotBytes) {
    return Math.max(minBytes, snapshotBytes / 4);
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
      long copied = copyFromSparseJournals();
      int next;
      List<Change> records;
      Map<String, List<DiskTurns.Ref>> index;
      synchronized (storeLock) {
        next = journal.rollOver();
        records = state.snapshot();
        index = turns.finishedBySession();
      }
      long bytes = dir.writeSnapshot(records, next, index);
      int deleted = deleteUnused(next);
      synchronized (this) {
        threshold = bound(minBytes, bytes);
      }
      log.debug("Compacted the store in {}: {} records, {} finished turns, {} bytes, {} bytes of "
          + "turns copied, {} journals deleted, in {} ms", dir.path(), records.size(),
          index.values().stream().mapToInt(List::size).sum(), bytes, copied, deleted,
          (System.nanoTime() - started) / 1_000_000);
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

  /**
   * Copies the finished turns of older journals that are less than half live to the current
   * one, at most {@code minBytes} a time; returns the bytes copied.
   */
  private long copyFromSparseJournals() throws IOException {
    long copied = 0;
    int current = journal.number();
    for (var e : dir.journals().headMap(current).entrySet()) {
      if (copied >= minBytes) {
        break;
      }
      long size = Files.size(e.getValue());
      List<DiskTurns.Ref> kept;
      synchronized (storeLock) {
        long live = turns.liveBytes(e.getKey());
        if (live == 0 || live * 2 >= size) {
          continue;
        }
        kept = turns.keptIn(e.getKey());
      }
      for (DiskTurns.Ref r : kept) {
        Home from = new Home(r.journal, r.offset, r.length);
        byte[] record;
        try {
          record = turns.files().bytes(from);
          RecordCodec.check(record, 0, record.length - 1);
        } catch (TurnFiles.GoneException gone) {
          continue;
        } catch (RecordCodec.BadRecordException damaged) {
          // never copied: a damaged record would refuse the next open; its journal stays
          log.warn("The finished turn {} in {} (byte {}) is damaged ({}); it is left where it "
              + "is", r.id, dir.journal(r.journal), r.offset, damaged.getMessage());
          continue;
        }
        synchronized (storeLock) {
          if (from.equals(turns.handle(r.id))) {
            journal.append(record);
            turns.putHome(r.id, r.sessionId, r.seq,
                new Home(journal.number(), journal.lastOffset(), record.length));
            copied += record.length;
          }
        }
      }
    }
    return copied;
  }

  /**
   * Deletes the journals before {@code next} that keep no finished turn, once the writes that
   * emptied them are on disk; returns how many.
   */
  private int deleteUnused(int next) throws IOException {
    List<Integer> unused = new ArrayList<>();
    long position;
    var older = dir.journals().headMap(next).keySet();
    synchronized (storeLock) {
      for (int n : older) {
        if (turns.liveBytes(n) == 0) {
          unused.add(n);
        }
      }
      position = journal.appended();
    }
    journal.awaitDurable(position);
    for (int n : unused) {
      turns.files().delete(n);
    }
    if (!unused.isEmpty()) {
      dir.syncDirectory();
    }
    return unused.size();
  }
}
