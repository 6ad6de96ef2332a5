package dev.gadget.core.drone;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One drone per workspace directory: an operating-system lock on {@code .gadget/drone.lock},
 * which also records who holds it (process id, host name, since when) so that a second drone can
 * say which process has the workspace. The operating system releases the lock when its process
 * ends, however it ends: a file left behind by a drone killed with {@code kill -9} never blocks
 * the next one. {@link GadgetDrone#start()} takes it and {@link GadgetDrone#close()} releases it;
 * take it yourself only to refuse early, before a drone is built (and close it before that
 * drone starts).
 *
 * <p>Within one JVM a second lock on the same directory is refused too. The lock file is never
 * opened a second time while this process holds it (on Linux, closing any descriptor of a file
 * drops the process's locks on it). Thread-safe.
 */
public final class WorkspaceLock implements AutoCloseable {
  /** The lock file's name under {@code .gadget/}. */
  public static final String FILE = "drone.lock";
  private static final int MAX_HOLDER_BYTES = 4096;
  /** The lock files this JVM holds, by real path. */
  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

  private final Path key;
  private final FileChannel channel;
  private final FileLock lock;
  private boolean released;

  private WorkspaceLock(Path key, FileChannel channel, FileLock lock) {
    this.key = key;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code workspaceDir} for this process, creating {@code .gadget/} when missing, and
   * records this process's id, {@code hostname} and the time from {@code clock} in the lock file.
   *
   * @throws WorkspaceException if another drone holds the workspace (the message names its
   *     process id, host and start time), or the lock file cannot be made
   */
  public static WorkspaceLock acquire(Path workspaceDir, String hostname, Clock clock) {
    Path dir = workspaceDir.toAbsolutePath().normalize();
    Path file = dir.resolve(".gadget").resolve(FILE);
    Path key;
    try {
      Files.createDirectories(file.getParent());
      key = file.getParent().toRealPath().resolve(FILE);
    } catch (IOException e) {
      throw new WorkspaceException("cannot create " + file.getParent() + ": " + e.getMessage(),
          e);
    }
    if (!HELD.add(key)) {
      throw inUse(dir, "another drone in this process (pid " + ProcessHandle.current().pid()
          + ")");
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        String holder = describeHolder(read(channel));
        throw inUse(dir, holder);
      }
      ObjectNode holder = GadgetJson.mapper().createObjectNode()
          .put("pid", ProcessHandle.current().pid())
          .put("hostname", hostname)
          .put("since", clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
      byte[] bytes = (GadgetJson.mapper().writeValueAsString(holder) + "\n")
          .getBytes(StandardCharsets.UTF_8);
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(bytes), 0);
      channel.force(false);
      return new WorkspaceLock(key, channel, lock);
    } catch (IOException e) {
      release(key, channel);
      throw new WorkspaceException("cannot lock " + file + ": " + e.getMessage(), e);
    } catch (RuntimeException e) {
      release(key, channel);
      throw e;
    }
  }

  private static WorkspaceException inUse(Path dir, String holder) {
    return new WorkspaceException("the workspace " + dir + " is in use by " + holder
        + ": one drone per workspace. Stop that drone first, or give this one another "
        + "workspace directory.");
  }

  /** Who a lock file names, for a person; the file may be half written or from elsewhere. */
  private static String describeHolder(String content) {
    try {
      JsonNode n = GadgetJson.mapper().readTree(content);
      if (n != null && n.path("pid").canConvertToLong()) {
        String host = n.path("hostname").asText("");
        String since = n.path("since").asText("");
        return "another drone, pid " + n.path("pid").asLong()
            + (host.isEmpty() ? "" : " on " + host)
            + (since.isEmpty() ? "" : " (running since " + since + ")");
      }
    } catch (IOException | RuntimeException e) {
      // falls through: the holder has not written its name yet
    }
    return "another drone (its lock file does not name it yet)";
  }

  private static String read(FileChannel channel) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(MAX_HOLDER_BYTES);
    while (buf.hasRemaining() && channel.read(buf, buf.position()) > 0) {
      // reads until the end of the file or the buffer
    }
    return new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8);
  }

  private static void release(Path key, FileChannel channel) {
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException e) {
      // closing is all that is left to do
    } finally {
      HELD.remove(key);
    }
  }

  /** Releases the lock (the lock file stays; the next drone overwrites it). Idempotent. */
  @Override
  public synchronized void close() {
    if (released) {
      return;
    }
    released = true;
    try {
      lock.release();
    } catch (IOException e) {
      // the channel's close below releases it too
    }
    release(key, channel);
  }
}
