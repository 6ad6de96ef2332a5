package dev.gadget.core.store.internal;

import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.internal.StoreDirectory.SnapshotHeader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Converts, once and in place, a directory written by the format before this one (version 1: a
 * snapshot holding every turn whole, journals with each turn's blocks as separate records) to
 * this one. Reads it all (the old way, once), writes every finished turn whole into a new
 * journal {@code L+1} after the last one, syncs it, then writes a version 3 snapshot with its
 * index naming {@code L+2}: that rename is the one moment the directory changes format. A crash
 * before it leaves a version 1 directory whose last journal holds whole turns (records version 1
 * reads too) and perhaps a torn end, which the next open drops and converts again; after it, the
 * old journals are deleted by the next open as journals that keep nothing.
 */
final class StoreConverter {
  private static final Logger log = LoggerFactory.getLogger(StoreConverter.class);

  private StoreConverter() {}

  /** Converts {@code dir} if it holds the format before; returns whether it did. */
  static boolean convertIfOld(StoreDirectory dir, long cacheBytes) {
    int target = 0;
    boolean committed = false;
    try {
      if (!StoreLoader.oldFormat(dir)) {
        return false;
      }
      long started = System.nanoTime();
      Files.deleteIfExists(dir.path().resolve(StoreDirectory.SNAPSHOT_TMP));
      boolean snapshot = Files.exists(dir.snapshot());
      int first = snapshot ? StoreLoader.readSnapshot(dir, c -> { }, true).journal() : 1;
      var journals = dir.journals();
      target = Math.max(first, journals.isEmpty() ? 1 : journals.lastKey() + 1);
      try (TurnFiles files = new TurnFiles(dir, new TurnCache(cacheBytes));
          FileChannel out = dir.createJournal(target)) {
        DiskTurns turns = new DiskTurns(files);
        IndexedState state = new IndexedState(turns);
        Writer writer = new Writer(out, target, state, turns);
        if (snapshot) {
          StoreLoader.readSnapshot(dir, writer::accept, false);
        }
        JournalReader.replay(dir, first, target - 1, 0, (b, from, to, journal, offset) ->
            writer.accept(RecordCodec.decode(b, from, to, Change.class)));
        out.force(true);
        long bytes = dir.writeSnapshot(state.snapshot(), target + 1,
            turns.finishedBySession());
        committed = true;
        log.info("Converted the store in {} to the format that keeps finished turns on disk "
            + "rather than in memory (version {}): {}, {} bytes of snapshot and index, in {} ms. "
            + "The journals of the old format are deleted; earlier Gadget versions cannot "
            + "open this directory any more", dir.path(), SnapshotHeader.VERSION,
            state.summary(), bytes, (System.nanoTime() - started) / 1_000_000);
      }
      return true;
    } catch (IOException | UncheckedIOException e) {
      throw new StoreException(StoreException.Reason.FAILED, "cannot convert the store in "
          + dir.path() + " to this version's format: " + e + ". The directory is as it was; "
          + "free space or fix the disk, then open it again", e);
    } finally {
      if (target > 0 && !committed) {
        try {
          Files.deleteIfExists(dir.journal(target));
        } catch (IOException e) {
          log.debug("cannot delete {}: {}", dir.journal(target), e.toString());
        }
      }
    }
  }

  /** Applies old records, writing each finished turn whole to the new journal. */
  private static final class Writer {
    private final FileChannel out;
    private final int journal;
    private final IndexedState state;
    private final DiskTurns turns;
    private long at;

    Writer(FileChannel out, int journal, IndexedState state, DiskTurns turns) {
      this.out = out;
      this.journal = journal;
      this.state = state;
      this.turns = turns;
    }

    void accept(Change change) {
      Change c = state.wholeTurns(change);
      if (c instanceof Change.CreateTurn t && t.turn().status().isTerminal()) {
        byte[] record = RecordCodec.encode(c);
        try {
          ByteBuffer buf = ByteBuffer.wrap(record);
          long pos = at;
          while (buf.hasRemaining()) {
            pos += out.write(buf, pos);
          }
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        turns.pending(new Home(journal, at, record.length));
        at += record.length;
      }
      state.apply(c);
    }
  }
}
