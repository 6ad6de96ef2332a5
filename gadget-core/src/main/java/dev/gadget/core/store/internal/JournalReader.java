package dev.gadget.core.store.internal;

import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.internal.RecordCodec.BadRecordException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the journals of a store directory from a snapshot on, record by record, and hands each
 * whole record to a {@link Handler}. A record cut short at the very end of the last journal (the
 * process died while appending it, so it was never acknowledged) is dropped with a warning; a
 * damaged or unreadable record anywhere else refuses the whole directory, changing nothing, with
 * a message that names the file, the line and the byte.
 */
final class JournalReader {
  private static final Logger log = LoggerFactory.getLogger(JournalReader.class);

  /** What a store does with one record. */
  interface Handler {
    /**
     * Takes the record {@code b[from, to)} (without its newline) at byte {@code offset} of
     * journal {@code journal}.
     *
     * @throws BadRecordException if its checksum does not match, or it cannot be read
     */
    void record(byte[] b, int from, int to, int journal, long offset) throws BadRecordException;
  }

  private JournalReader() {}

  /**
   * Replays the journals numbered from {@code first} to {@code upTo}, in order.
   *
   * @return the journal to append to and its size without a dropped torn record
   */
  static StoreLoader.Loaded replay(StoreDirectory dir, int first, int upTo, long snapshotBytes,
      Handler handler) throws IOException {
    TreeMap<Integer, Path> journals = new TreeMap<>(dir.journals().headMap(upTo, true));
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
      return new StoreLoader.Loaded(first, 0, false, snapshotBytes);
    }
    int last = journals.lastKey();
    long lastSize = 0;
    for (var e : live.entrySet()) {
      lastSize = replay(dir, e.getKey(), e.getValue(), handler, e.getKey() == last);
    }
    return new StoreLoader.Loaded(last, lastSize, true, snapshotBytes);
  }

  /** Applies one journal; returns its size without a dropped torn record. */
  private static long replay(StoreDirectory dir, int number, Path file, Handler handler,
      boolean last) throws IOException {
    long line = 0;
    try (InputStream in = Files.newInputStream(file)) {
      LineReader lines = new LineReader(in);
      while (lines.next()) {
        line++;
        try {
          if (!lines.terminated) {
            throw new BadRecordException("it has no end of line", false);
          }
          handler.record(lines.bytes(), lines.from, lines.to, number, lines.lineOffset);
        } catch (BadRecordException e) {
          long at = lines.lineOffset;
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
        } catch (java.io.UncheckedIOException e) {
          throw e.getCause();
        } catch (RuntimeException e) {
          throw refuse(dir, "line " + line + " of " + file.getFileName() + " (byte "
              + lines.lineOffset + ") refers to something the store does not hold ("
              + e.getMessage() + "); the directory was changed by hand or by another program");
        }
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

  private static StoreException damaged(StoreDirectory dir, Path file, long line, long offset,
      String why) {
    return refuse(dir, "line " + line + " of " + file.getFileName() + " (byte " + offset
        + ") is damaged: " + why + ". It is not the end of the last journal, so it is not a "
        + "write cut short by a crash. Restore the directory from a backup; or, to keep only "
        + "what comes before that record, cut the file there (truncate -s " + offset + " '"
        + file + "') and delete any later journal");
  }

  static StoreException refuse(StoreDirectory dir, String why) {
    return new StoreException(StoreException.Reason.FAILED,
        "cannot open the store in " + dir.path() + ": " + why + ". Nothing was changed.");
  }
}
