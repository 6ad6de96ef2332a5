package dev.gadget.core.drone;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.WorkspaceData;
import dev.gadget.core.model.WorkspaceMode;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A drone's workspace directory and its {@code .gadget/} files (seed 001, section 7):
 * {@code workspace.json}, the workspace's persistent identity, and {@code work-order.json}, the
 * cache of the work order in progress. Writes are atomic (a temporary file moved into place), so
 * a crash never leaves half a file. Thread-safe.
 */
public final class Workspace {
  private static final ObjectMapper JSON =
      GadgetJson.newMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final Path dir;
  private final Path gadgetDir;
  private final Path workspaceFile;
  private final Path workOrderFile;
  private WorkspaceData data;
  private boolean closed;

  private Workspace(Path dir, WorkspaceData data) {
    this.dir = dir;
    this.gadgetDir = dir.resolve(".gadget");
    this.workspaceFile = gadgetDir.resolve("workspace.json");
    this.workOrderFile = gadgetDir.resolve("work-order.json");
    this.data = data;
  }

  /** This machine's host name, or {@code localhost} when it has none. */
  static String localHostname() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "localhost";
    }
  }

  /** As {@link #open}, under {@code lock}, which is released when the workspace cannot open. */
  static Workspace openOrRelease(Path dir, String hostname, Clock clock, WorkspaceLock lock) {
    try {
      return open(dir, hostname, clock);
    } catch (RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /**
   * Opens the workspace in {@code dir}, creating the directory and {@code .gadget/workspace.json}
   * if they are missing, and validating the file if it exists.
   *
   * @throws WorkspaceException if the file exists but is not a valid workspace file
   */
  public static Workspace open(Path dir, String hostname, Clock clock) {
    Path abs = dir.toAbsolutePath().normalize();
    Path file = abs.resolve(".gadget").resolve("workspace.json");
    try {
      Files.createDirectories(file.getParent());
    } catch (IOException e) {
      throw new WorkspaceException("cannot create " + file.getParent() + ": " + e.getMessage(), e);
    }
    WorkspaceData data;
    if (Files.exists(file)) {
      try {
        data = JSON.readValue(file.toFile(), WorkspaceData.class);
        UUID.fromString(data.workspaceId());
      } catch (IOException | RuntimeException e) {
        throw new WorkspaceException(file + " is not a valid workspace file (" + e.getMessage()
            + "); fix it or move it away to start a new workspace", e);
      }
      data = data.withHost(hostname, abs.toString());
    } else {
      data = new WorkspaceData(UUID.randomUUID().toString(), clock.instant(), hostname,
          abs.toString(), null, null, null, null, WorkspaceMode.IDLE);
    }
    Workspace w = new Workspace(abs, data);
    w.write(file, data);
    return w;
  }

  /** The workspace directory. */
  public Path dir() {
    return dir;
  }

  /** The workspace's persistent id. */
  public String id() {
    return data().workspaceId();
  }

  /** What {@code workspace.json} holds now. */
  public synchronized WorkspaceData data() {
    return data;
  }

  /**
   * Changes {@code workspace.json} and writes it. After {@link #close()} nothing is written and
   * the data stays as it was: the drone has let go of the workspace, and another may own it.
   */
  public synchronized WorkspaceData update(UnaryOperator<WorkspaceData> change) {
    if (closed) {
      return data;
    }
    WorkspaceData next = change.apply(data);
    write(workspaceFile, next);
    data = next;
    return next;
  }

  /** The directory project {@code slug} is checked out in. */
  public Path projectDir(String slug) {
    if (slug == null || !slug.matches("[A-Za-z0-9._-]+") || slug.equals(".")
        || slug.equals("..")) {
      throw new WorkspaceException("refusing project directory name " + slug);
    }
    return dir.resolve(slug);
  }

  /** Writes {@code .gadget/work-order.json}; after {@link #close()}, nothing. */
  public synchronized void writeWorkOrder(WorkOrderCache cache) {
    if (!closed) {
      write(workOrderFile, cache);
    }
  }

  /**
   * Ends this drone's writes: a write under way finishes first, later ones are dropped (a late
   * reply from the server must not overwrite the files of the drone that opens the workspace
   * next). Call before releasing the {@link WorkspaceLock}.
   */
  public synchronized void close() {
    closed = true;
  }

  /**
   * Reads {@code .gadget/work-order.json}, if present.
   *
   * @throws WorkspaceException if it is present but unreadable
   */
  public Optional<WorkOrderCache> readWorkOrder() {
    if (!Files.exists(workOrderFile)) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readValue(workOrderFile.toFile(), WorkOrderCache.class));
    } catch (IOException | RuntimeException e) {
      throw new WorkspaceException(workOrderFile + " is not a valid work order cache: "
          + e.getMessage(), e);
    }
  }

  /** Removes {@code .gadget/work-order.json}; after {@link #close()}, nothing. */
  public synchronized void deleteWorkOrder() {
    if (closed) {
      return;
    }
    try {
      Files.deleteIfExists(workOrderFile);
    } catch (IOException e) {
      throw new WorkspaceException("cannot remove " + workOrderFile + ": " + e.getMessage(), e);
    }
  }

  /** Moves an unreadable work order cache aside, keeping it for a person to look at. */
  public Path quarantineWorkOrder() {
    Path aside = gadgetDir.resolve("work-order.json.corrupt");
    try {
      Files.move(workOrderFile, aside, StandardCopyOption.REPLACE_EXISTING);
      return aside;
    } catch (IOException e) {
      throw new WorkspaceException("cannot move " + workOrderFile + " aside: " + e.getMessage(), e);
    }
  }

  /**
   * Writes {@code value} to a temporary file, syncs it to disk, moves it into place and syncs
   * the directory: once this returns, the file survives a crash of the machine, not only of the
   * drone (the journal of a tool's start must, or a tool could run twice).
   */
  private void write(Path file, Object value) {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      byte[] bytes = JSON.writeValueAsBytes(value);
      // A stream, not a FileChannel: a cancel interrupts the thread that writes here, and an
      // interrupted channel would refuse the write (a stop's end must still be cached).
      try (FileOutputStream out = new FileOutputStream(tmp.toFile())) {
        out.write(bytes);
        out.getFD().sync();
      }
      try {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      syncDirectory(file.getParent());
    } catch (IOException e) {
      throw new WorkspaceException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** Makes a rename in {@code dir} durable, where the platform allows syncing a directory. */
  private static void syncDirectory(Path dir) {
    // A channel refuses to work on an interrupted thread: clear the flag for this short,
    // bounded call and set it again after.
    boolean interrupted = Thread.interrupted();
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Some platforms (Windows) cannot open or sync a directory; the file itself is synced.
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
