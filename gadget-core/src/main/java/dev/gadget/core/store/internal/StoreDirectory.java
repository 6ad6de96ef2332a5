package dev.gadget.core.store.internal;

import dev.gadget.core.spi.StoreException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The files of a journaled store's directory, owned by one process at a time:
 *
 * <pre>
 * lock                   held (FileChannel.tryLock) while a process has the store open
 * snapshot.jsonl         all but users, projects, chats and finished turns as of the start of
 *                        journal N: a header, then one record each
 * index-00000N.bin       the users, projects and chats, and where each finished turn is kept, as
 *                        of the same moment
 *                        ({@link IndexFile})
 * journal-00000N.jsonl   every write since, one record each, appended and synced; the journals
 *                        before N that still keep finished turns' records
 * </pre>
 *
 * The directory and every file are readable by their owner only, where the file system has POSIX
 * permissions: prompts, code and tool output live here.
 */
public final class StoreDirectory implements AutoCloseable {
  static final String LOCK = "lock";
  static final String SNAPSHOT = "snapshot.jsonl";
  static final String SNAPSHOT_TMP = "snapshot.jsonl.tmp";
  static final Pattern JOURNAL = Pattern.compile("journal-(\\d{6,9})\\.jsonl");
  static final Pattern INDEX = Pattern.compile("index-(\\d{6,9})\\.bin");
  private static final Set<PosixFilePermission> DIR_PERMS =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> FILE_PERMS =
      PosixFilePermissions.fromString("rw-------");

  private final Path dir;
  private final boolean posix;
  private final FileChannel lockChannel;
  private final FileLock lock;

  private StoreDirectory(Path dir, boolean posix, FileChannel lockChannel, FileLock lock) {
    this.dir = dir;
    this.posix = posix;
    this.lockChannel = lockChannel;
    this.lock = lock;
  }

  /**
   * Creates the directory if needed, restricts it to its owner and locks it.
   *
   * @throws StoreException UNAVAILABLE if another process has it open, FAILED if it cannot be
   *     created or locked
   */
  public static StoreDirectory open(Path directory) {
    Path dir = directory.toAbsolutePath().normalize();
    boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
    FileChannel channel = null;
    try {
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir, posix
            ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(DIR_PERMS)}
            : new FileAttribute<?>[0]);
      }
      if (posix) {
        Files.setPosixFilePermissions(dir, DIR_PERMS);
      }
      channel = FileChannel.open(dir.resolve(LOCK), Set.of(StandardOpenOption.CREATE,
          StandardOpenOption.READ, StandardOpenOption.WRITE), fileAttributes(posix));
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        String holder = new String(Files.readAllBytes(dir.resolve(LOCK)),
            StandardCharsets.US_ASCII).trim();
        channel.close();
        throw new StoreException(StoreException.Reason.UNAVAILABLE, "the store directory " + dir
            + " is in use by another process" + (holder.matches("\\d+") ? " (pid " + holder
            + ")" : "") + "; only one process at a time can open it");
      }
      channel.truncate(0);
      channel.write(java.nio.ByteBuffer.wrap(
          String.valueOf(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII)), 0);
      return new StoreDirectory(dir, posix, channel, lock);
    } catch (IOException e) {
      closeQuietly(channel);
      throw new StoreException(StoreException.Reason.FAILED,
          "cannot open the store directory " + dir + ": " + e, e);
    }
  }

  /** The directory, absolute. */
  public Path path() {
    return dir;
  }

  Path journal(int number) {
    return dir.resolve(String.format("journal-%06d.jsonl", number));
  }

  Path snapshot() {
    return dir.resolve(SNAPSHOT);
  }

  Path index(int journal) {
    return dir.resolve(String.format("index-%06d.bin", journal));
  }

  /** The journals present, by number. */
  TreeMap<Integer, Path> journals() throws IOException {
    return numbered(JOURNAL);
  }

  /** The files whose names {@code pattern} matches, by the number in their name. */
  TreeMap<Integer, Path> numbered(Pattern pattern) throws IOException {
    TreeMap<Integer, Path> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.forEach(p -> {
        Matcher m = pattern.matcher(p.getFileName().toString());
        if (m.matches()) {
          out.put(Integer.parseInt(m.group(1)), p);
        }
      });
    }
    return out;
  }

  /** Creates journal {@code number}, empty, and makes its name durable. */
  FileChannel createJournal(int number) throws IOException {
    Path p = journal(number);
    FileChannel ch;
    try {
      ch = FileChannel.open(p, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
          fileAttributes(posix));
    } catch (FileAlreadyExistsException e) {
      throw new IOException(p + " already exists", e);
    }
    syncDirectory();
    return ch;
  }

  /** Opens an existing journal to append to it after {@code size} bytes. */
  FileChannel appendTo(int number, long size) throws IOException {
    FileChannel ch = FileChannel.open(journal(number), StandardOpenOption.WRITE);
    if (ch.size() != size) {
      ch.truncate(size);
      ch.force(true);
    }
    ch.position(size);
    return ch;
  }

  /**
   * Writes a snapshot atomically: the users, projects and chat sessions among {@code records}
   * and the index of the finished turns to {@code index-N.bin} (binary, {@link IndexFile}), synced;
   * the other records to a temporary file, synced, renamed over the old snapshot, and the rename
   * synced; then deletes the other indexes. Returns their size in bytes.
   */
  public long writeSnapshot(List<Change> records, int journal,
      Map<String, List<DiskTurns.Ref>> finished) throws IOException {
    IndexFile.Index.Records binary = new IndexFile.Index.Records(new ArrayList<>(),
        new ArrayList<>(), new ArrayList<>());
    List<Change> others = new ArrayList<>(records.size());
    for (Change c : records) {
      if (c instanceof Change.CreateUser u) {
        binary.users().add(u.user());
      } else if (c instanceof Change.CreateProject p) {
        binary.projects().add(p.project());
      } else if (c instanceof Change.CreateSession s) {
        binary.sessions().add(s.session());
      } else {
        others.add(c);
      }
    }
    long turns = 0;
    Path index = index(journal);
    boolean indexed = !finished.isEmpty() || !binary.isEmpty();
    if (indexed) {
      try (FileChannel ch = FileChannel.open(index, Set.of(StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE),
          fileAttributes(posix))) {
        turns = IndexFile.write(Channels.newOutputStream(ch), binary, finished);
        ch.force(true);
      }
    }
    Path tmp = dir.resolve(SNAPSHOT_TMP);
    Files.deleteIfExists(tmp);
    try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE), fileAttributes(posix))) {
      OutputStream out = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
      out.write(RecordCodec.encode(new SnapshotHeader(SnapshotHeader.FORMAT,
          SnapshotHeader.VERSION, journal, others.size(), turns, binary.users().size(),
          binary.projects().size(), binary.sessions().size())));
      for (Change c : others) {
        out.write(RecordCodec.encode(c));
      }
      out.flush();
      ch.force(true);
    }
    Files.move(tmp, snapshot(), StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    syncDirectory();
    deleteIndexesBut(indexed ? journal : -1);
    return Files.size(snapshot()) + (indexed ? Files.size(index) : 0);
  }

  /** Deletes the index files but the one of journal {@code keep}. */
  void deleteIndexesBut(int keep) throws IOException {
    for (var e : numbered(INDEX).entrySet()) {
      if (e.getKey() != keep) {
        Files.deleteIfExists(e.getValue());
      }
    }
  }

  /** Makes the directory's entries (created, renamed, deleted files) durable. */
  void syncDirectory() throws IOException {
    if (!posix) {
      return; // Windows cannot open a directory as a channel; NTFS journals its metadata
    }
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  private static FileAttribute<?>[] fileAttributes(boolean posix) {
    return posix
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE_PERMS)}
        : new FileAttribute<?>[0];
  }

  /** Releases the directory to other processes. */
  @Override
  public void close() {
    try {
      lock.release();
    } catch (IOException e) {
      // closing the channel releases it too
    }
    closeQuietly(lockChannel);
  }

  private static void closeQuietly(FileChannel ch) {
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException e) {
        // nothing to keep
      }
    }
  }

  /**
   * The first line of a snapshot.
   *
   * @param format always {@value #FORMAT}
   * @param version the layout's version: {@value #VERSION}; 2 kept the users, projects and
   *     chat sessions as JSON records (and is read as it is); 1 held finished turns whole as
   *     records, and is converted when opened
   * @param journal the first journal that is not in the snapshot
   * @param records how many records follow
   * @param turns how many finished turns {@code index-N.bin} holds
   * @param users how many users {@code index-N.bin} holds (version 3)
   * @param projects how many projects it holds (version 3)
   * @param sessions how many chat sessions it holds (version 3); without any of these or turns
   *     there is no index
   */
  record SnapshotHeader(String format, int version, int journal, long records, long turns,
      long users, long projects, long sessions) {
    static final String FORMAT = "gadget-store-snapshot";
    static final int VERSION = 3;

    /** Whether an index file goes with this snapshot. */
    boolean indexed() {
      return turns > 0 || users > 0 || projects > 0 || sessions > 0;
    }
  }
}
