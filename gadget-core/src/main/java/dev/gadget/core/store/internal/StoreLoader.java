package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.internal.RecordCodec.BadRecordException;
import dev.gadget.core.store.internal.StoreDirectory.SnapshotHeader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * Opens a store directory without reading its history: loads the snapshot (tokens, drones,
 * providers, the running turns) and its index (the users, projects and chat sessions, binary,
 * and where each finished turn is kept), then replays the journals written since as metadata
 * only: a finished turn's record is checked (its checksum) and its first fields read
 * ({@link RecordPeek}), never decoded whole. Deletes the journals before the snapshot that keep no
 * finished turn any more (a crash after a compaction, before it deleted them). An empty directory
 * gets an empty snapshot; a directory of the format before (version 1) is for {@link
 * StoreConverter}.
 */
public final class StoreLoader {
  /**
   * What was loaded.
   *
   * @param journal the number of the journal to append to
   * @param journalBytes its size, without a dropped torn record
   * @param exists whether that journal exists (else it must be created)
   * @param snapshotBytes the snapshot's size with its index, 0 without one
   */
  public record Loaded(int journal, long journalBytes, boolean exists, long snapshotBytes) {}

  private StoreLoader() {}

  /** Whether {@code dir} holds a store of the format before this one, to be converted. */
  static boolean oldFormat(StoreDirectory dir) throws IOException {
    if (!Files.exists(dir.snapshot())) {
      return !dir.journals().isEmpty();
    }
    return readSnapshot(dir, c -> { }, true).version() < 2;
  }

  /** Loads {@code dir} into {@code state}, whose turns are {@code turns}; both empty. */
  static Loaded load(StoreDirectory dir, IndexedState state, DiskTurns turns) {
    try {
      Files.deleteIfExists(dir.path().resolve(StoreDirectory.SNAPSHOT_TMP));
      if (!Files.exists(dir.snapshot())) {
        dir.writeSnapshot(List.of(), 1, Map.of());
      }
      // the index (binary: users, projects, chats, finished turns) is read beside the snapshot
      SnapshotHeader peek = readSnapshot(dir, c -> { }, true);
      Path index = dir.index(peek.journal());
      CompletableFuture<IndexFile.Index> read = !peek.indexed()
          ? CompletableFuture.completedFuture(IndexFile.Index.EMPTY)
          : CompletableFuture.supplyAsync(() -> {
            try {
              return IndexFile.read(index);
            } catch (IOException e) {
              throw new CompletionException(e);
            }
          }, r -> {
            Thread t = new Thread(r, "gadget-store-open");
            t.setDaemon(true);
            t.start();
          });
      SnapshotHeader header = readSnapshot(dir, state::apply, false);
      int first = header.journal();
      try {
        turns.expect(header.turns());
        IndexFile.Index loaded = read.join();
        IndexFile.Index.Records records = loaded.records();
        if (records.users().size() != header.users()
            || records.projects().size() != header.projects()
            || records.sessions().size() != header.sessions()) {
          throw new CompletionException(new IOException("it holds " + records.users().size()
              + " users, " + records.projects().size() + " projects and "
              + records.sessions().size() + " chat sessions where the snapshot says "
              + header.users() + ", " + header.projects() + " and " + header.sessions()));
        }
        records.users().forEach(state::putUser);
        records.projects().forEach(state::putProject);
        records.sessions().forEach(state::putSession);
        for (IndexFile.Chat chat : loaded.chats()) {
          turns.loadSession(state.findSession(chat.sessionId()).map(ChatSession::id)
              .orElse(chat.sessionId()), chat.turns());
        }
      } catch (CompletionException e) {
        throw JournalReader.refuse(dir, index.getFileName() + " cannot be read: "
            + e.getCause().getMessage() + ". Restore the directory from a backup");
      }
      Loaded loaded = JournalReader.replay(dir, first, Integer.MAX_VALUE,
          Files.size(dir.snapshot()) + (header.indexed() ? Files.size(dir.index(first)) : 0),
          (b, from, to, journal, offset) -> metadata(state, turns, b, from, to, journal, offset));
      deleteUnused(dir, turns, first);
      return loaded;
    } catch (IOException e) {
      throw new StoreException(StoreException.Reason.FAILED,
          "cannot read the store in " + dir.path() + ": " + e, e);
    }
  }

  /** One record of the journals since the snapshot: a finished turn's by its first fields. */
  private static void metadata(IndexedState state, DiskTurns turns, byte[] b, int from, int to,
      int journal, long offset) throws BadRecordException {
    int json = RecordCodec.check(b, from, to);
    RecordPeek peek;
    try {
      peek = RecordPeek.of(b, from, from + json);
    } catch (IOException e) {
      throw new BadRecordException("it is not a record this version can read", true);
    }
    if (peek.finishedTurn()) {
      if (state.findSession(peek.sessionId()).isEmpty()) {
        throw new IllegalStateException("the chat session " + peek.sessionId()
            + " does not exist");
      }
      turns.putHome(peek.turnId(), peek.sessionId(), peek.seq(),
          new Home(journal, offset, to - from + 1));
    } else {
      state.apply(RecordCodec.decode(b, from, to, Change.class));
    }
  }

  /** Deletes the journals before {@code first} that keep no finished turn, and stray indexes. */
  static void deleteUnused(StoreDirectory dir, DiskTurns turns, int first) throws IOException {
    boolean deleted = false;
    for (var e : dir.journals().headMap(first).entrySet()) {
      if (turns.liveBytes(e.getKey()) == 0) {
        deleted |= Files.deleteIfExists(e.getValue());
      }
    }
    if (deleted) {
      dir.syncDirectory();
    }
  }

  /**
   * Reads the snapshot's header and hands each of its records to {@code apply}; with {@code
   * headerOnly}, the header alone (any version).
   */
  static SnapshotHeader readSnapshot(StoreDirectory dir, Consumer<Change> apply,
      boolean headerOnly) throws IOException {
    Path file = dir.snapshot();
    try (InputStream in = Files.newInputStream(file)) {
      LineReader lines = new LineReader(in);
      if (!lines.next()) {
        throw JournalReader.refuse(dir, file.getFileName() + " is empty");
      }
      SnapshotHeader header = record(dir, file, lines, 1, SnapshotHeader.class);
      if (!SnapshotHeader.FORMAT.equals(header.format()) || header.version() < 1
          || header.version() > SnapshotHeader.VERSION || header.journal() < 1) {
        throw JournalReader.refuse(dir, file.getFileName() + " is not a snapshot this version "
            + "can read (format " + header.format() + ", version " + header.version() + ")");
      }
      if (headerOnly) {
        return header;
      }
      for (long i = 0; i < header.records(); i++) {
        if (!lines.next() || !lines.terminated) {
          throw JournalReader.refuse(dir, file.getFileName() + " ends after " + i + " of its "
              + header.records() + " records");
        }
        Change c = record(dir, file, lines, i + 2, Change.class);
        try {
          apply.accept(c);
        } catch (RuntimeException e) {
          throw JournalReader.refuse(dir, "line " + (i + 2) + " of " + file.getFileName()
              + " refers to something the store does not hold (" + e.getMessage() + ")");
        }
      }
      if (lines.next()) {
        throw JournalReader.refuse(dir, file.getFileName() + " has more records than its "
            + "header says");
      }
      return header;
    }
  }

  /** A record of the snapshot, which is written whole or not at all: any damage refuses. */
  private static <T> T record(StoreDirectory dir, Path file, LineReader lines, long line,
      Class<T> type) {
    try {
      return RecordCodec.decode(lines.bytes(), lines.from, lines.to, type);
    } catch (BadRecordException e) {
      throw JournalReader.refuse(dir, "line " + line + " of " + file.getFileName() + " (byte "
          + lines.lineOffset + ") is damaged: " + e.getMessage() + ". Restore the directory "
          + "from a backup");
    }
  }
}
