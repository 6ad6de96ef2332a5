package dev.gadget.acp.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.store.JournaledChatStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where ACP sessions are kept: each in its own {@link JournaledChatStore} directory,
 * {@code <root>/sessions/<sessionId>/}, so that two Gadget processes (two editors) never share
 * a store's lock, and a session is open in one process at a time. The store holds the session's
 * turns as the server stores a drone's (prompt, thinking, text, tool calls with their results,
 * compactions), never a key: the model's configuration is not written. Without a root, sessions
 * are kept in memory and end with the process.
 */
final class SessionStore {
  /** The one user every session of this agent belongs to. */
  static final String USER_ID = "editor";
  static final String PROJECT_ID = "project";
  private static final Logger log = LoggerFactory.getLogger(SessionStore.class);
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,100}");

  private final Path root;

  /** Sessions under {@code root}, or in memory when {@code root} is {@code null}. */
  SessionStore(Path root) {
    this.root = root == null ? null : root.toAbsolutePath().normalize();
  }

  /** Whether sessions outlive the process (and {@code session/load} is offered). */
  boolean durable() {
    return root != null;
  }

  /** The root directory, or {@code null}. */
  Path root() {
    return root;
  }

  /**
   * Opens the store of a new session on {@code cwd}. When its directory cannot be created, the
   * session is kept in memory (said in the log once): the chat works, it just cannot be loaded.
   */
  ChatStore create(String sessionId, Path cwd, String model) {
    ChatStore store = null;
    if (root != null) {
      try {
        ownerOnly(root.resolve("sessions"));
        store = JournaledChatStore.open(directory(sessionId));
      } catch (StoreException | IOException e) {
        log.warn("session {} is kept in memory only: its store under {} cannot be opened ({})",
            sessionId, root, e.getMessage());
      }
    }
    if (store == null) {
      store = new InMemoryChatStore();
    }
    Instant now = Instant.now();
    String dir = cwd.getFileName() == null ? "project" : cwd.getFileName().toString();
    String slug = dir.replaceAll("[^A-Za-z0-9._-]", "_");
    store.createUser(new User(USER_ID, USER_ID, "Editor", now));
    store.createProject(new Project(PROJECT_ID, USER_ID, dir, slug.matches("\\.+") ? "project"
        : slug, cwd.toString(), now));
    store.createSession(new ChatSession(sessionId, USER_ID, PROJECT_ID, "ACP session on " + dir,
        null, now, null, model));
    return store;
  }

  /**
   * Opens the store of the stored session {@code sessionId}.
   *
   * @throws RpcException when there is no such session, or another process has it open
   */
  ChatStore open(String sessionId) {
    if (root == null) {
      throw new RpcException(RpcException.RESOURCE_NOT_FOUND, "This Gadget agent keeps no "
          + "sessions on disk, so \"" + sessionId + "\" cannot be loaded; start a new one.");
    }
    if (!ID.matcher(sessionId).matches() || !Files.isDirectory(directory(sessionId))) {
      throw new RpcException(RpcException.RESOURCE_NOT_FOUND, "There is no stored session \""
          + sessionId + "\" in " + root.resolve("sessions") + "; start a new one.");
    }
    JournaledChatStore store;
    try {
      store = JournaledChatStore.open(directory(sessionId));
    } catch (StoreException e) {
      throw new RpcException(RpcException.INTERNAL_ERROR, e.reason()
          == StoreException.Reason.UNAVAILABLE ? "The session \"" + sessionId + "\" is open in "
          + "another Gadget process; close it there first." : "Gadget cannot read the stored "
          + "session \"" + sessionId + "\": " + e.getMessage());
    }
    if (store.findSession(sessionId).isEmpty()) {
      store.close();
      throw new RpcException(RpcException.RESOURCE_NOT_FOUND, "There is no stored session \""
          + sessionId + "\"; start a new one.");
    }
    return store;
  }

  /** Creates {@code dir} readable by its owner only (the sessions' ids are not others' either). */
  private static void ownerOnly(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      return;
    }
    Files.createDirectories(dir.getParent());
    if (dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rwx------")));
    } else {
      Files.createDirectories(dir);
    }
  }

  private Path directory(String sessionId) {
    return root.resolve("sessions").resolve(sessionId);
  }
}
