package dev.gadget.core.store.internal;

import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.internal.RecordCodec.BadRecordException;
import dev.gadget.core.store.internal.StoreDirectory.SnapshotHeader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a store directory back into memory: the snapshot, then every journal after it, record by
 * record. A record cut short at the very end of the last journal (the process died while
 * appending it, so it was never acknowledged) is dropped with a warning and cut off the file. A
 * damaged or unreadable record anywhere else refuses the whole directory, changing nothing,
 * with a message that names the file and the byte.
 */
public final class StoreLoader {
  private static final Logger log = LoggerFactory.getLogger(StoreLoader.class);

  /**
   * What was loaded.
   *
   * @param journal the number of the journal to append to
   * @param journalBytes its size, without a dropped torn record
   * @param exists whether that journal exists (else it must be created)
   * @param snapshotBytes the snapshot's size, 0 without one
   */
  public record Loaded(int journal, long journalBytes, boolean exists, long snapshotBytes) {}

  private StoreLoader() {}

  /** Loads {@code dir} into {@code state}, which must be empty. */
  public static Loaded load(StoreDirectory dir, IndexedState state) {
    try {
      Files.deleteIfExists(dir.path().resolve(StoreDirectory.SNAPSHOT_TMP));
      int first = 1;
      long snapshotBytes = 0;
      if (Files.exists(dir.snapshot())) {
        first = readSnapshot(dir, state);
        snapshotBytes = Files.size(dir.snapshot());
      }
      TreeMap<Integer, Path> journals = dir.journals();
      dir.deleteJournalsBefore(first);
      Map<Integer, Path> live = journals.tailMap(first, true);
      int expected = first;
      for (int n : live.keySet()) {
        if (n != expected) {
          throw refuse(dir, dir.journal(expected).getFileName() + " is missing (the journals "
              + "after it cannot be applied without it)");
        }
        expected++;
      }
      if (live.isEmpty()) {
        return new Loaded(first, 0, false, snapshotBytes);
      }
      int last = journals.lastKey();
      long lastSize = 0;
      for (var e : live.entrySet()) {
        lastSize = replay(dir, e.getValue(), state, e.getKey() == last);
      }
      return new Loaded(last, lastSize, true, snapshotBytes);
    } catch (IOException e) {
      throw new StoreException(StoreException.Reason.FAILED,
          "cannot read the store in " + dir.path() + ": " + e, e);
    }
  }

  /** Applies the snapshot; returns the first journal it does not contain. */
  private static int readSnapshot(StoreDirectory dir, IndexedState state) throws IOException {
    Path file = dir.snapshot();
    try (InputStream in = Files.newInputStream(file)) {
      LineReader lines = new LineReader(in);
      if (!lines.next()) {
        throw refuse(dir, file.getFileName() + " is empty");
      }
      SnapshotHeader header = record(dir, file, lines, 1, SnapshotHeader.class);
      if (!SnapshotHeader.FORMAT.equals(header.format()) || header.version() != 1
          || header.journal() < 1) {
        throw refuse(dir, file.getFileName() + " is not a snapshot this version can read "
            + "(format " + header.format() + ", version " + header.version() + ")");
      }
      for (long i = 0; i < header.records(); i++) {
        if (!lines.next() || !lines.terminated) {
          throw refuse(dir, file.getFileName() + " ends after " + i + " of its "
              + header.records() + " records");
        }
        apply(dir, file, lines, i + 2, record(dir, file, lines, i + 2, Change.class), state);
      }
      if (lines.next()) {
        throw refuse(dir, file.getFileName() + " has more records than its header says");
      }
      return header.journal();
    }
  }

  /** Applies one journal; returns its size without a dropped torn record. */
  private static long replay(StoreDirectory dir, Path file, IndexedState state, boolean last)
      throws IOException {
    long line = 0;
    try (InputStream in = Files.newInputStream(file)) {
      LineReader lines = new LineReader(in);
      while (lines.next()) {
        line++;
        Change change;
        try {
          if (!lines.terminated) {
            throw new BadRecordException("it has no end of line", false);
          }
          change = RecordCodec.decode(lines.bytes(), lines.from, lines.to, Change.class);
        } catch (BadRecordException e) {
          long at = lines.lineOffset;
          int length = lines.to - lines.from;
          boolean nul = has(lines, true);
          boolean zeros = nul && !has(lines, false);
          // A record holds no NUL byte, and a record is acknowledged once a sync has covered it
          // and all before it: from a NUL on, nothing was acknowledged (zeros written ahead, or
          // pages of a write cut short that the disk had not all taken).
          if (last && !e.intact() && (nul || lines.restIsZeros())) {
            if (zeros && lines.restIsZeros()) {
              log.debug("{} ends at byte {}, before the zeros written ahead", file, at);
            } else {
              log.warn("The end of {} from line {} (byte {}, {} bytes) was cut short when the "
                  + "process writing it died, so it was never acknowledged: dropping it",
                  file, line, at, Files.size(file) - at);
            }
            return at;
          }
          throw damaged(dir, file, line, at, e.getMessage());
        }
        apply(dir, file, lines, line, change, state);
      }
    }
    return Files.size(file);
  }

  /** Whether the current line holds a NUL byte ({@code nul}), or any other byte. */
  private static boolean has(LineReader lines, boolean nul) {
    byte[] b = lines.bytes();
    for (int i = lines.from; i < lines.to; i++) {
      if ((b[i] == 0) == nul) {
        return true;
      }
    }
    return false;
  }

  /** A record of the snapshot, which is written whole or not at all: any damage refuses. */
  private static <T> T record(StoreDirectory dir, Path file, LineReader lines, long line,
      Class<T> type) {
    try {
      return RecordCodec.decode(lines.bytes(), lines.from, lines.to, type);
    } catch (BadRecordException e) {
      throw refuse(dir, "line " + line + " of " + file.getFileName() + " (byte "
          + lines.lineOffset + ") is damaged: " + e.getMessage() + ". Restore the directory "
          + "from a backup");
    }
  }

  private static void apply(StoreDirectory dir, Path file, LineReader lines, long line,
      Change change, IndexedState state) {
    try {
      state.apply(change);
    } catch (RuntimeException e) {
      throw refuse(dir, "line " + line + " of " + file.getFileName() + " (byte "
          + lines.lineOffset + ") refers to something the store does not hold ("
          + e.getMessage() + "); the directory was changed by hand or by another program");
    }
  }

  private static StoreException damaged(StoreDirectory dir, Path file, long line, long offset,
      String why) {
    return refuse(dir, "line " + line + " of " + file.getFileName() + " (byte " + offset
        + ") is damaged: " + why + ". It is not the end of the last journal, so it is not a "
        + "write cut short by a crash. Restore the directory from a backup; or, to keep only "
        + "what comes before that record, cut the file there (truncate -s " + offset + " '"
        + file + "') and delete any later journal");
  }

  private static StoreException refuse(StoreDirectory dir, String why) {
    return new StoreException(StoreException.Reason.FAILED,
        "cannot open the store in " + dir.path() + ": " + why + ". Nothing was changed.");
  }
}
