package dev.gadget.core.store;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ProviderStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.internal.Change;
import dev.gadget.core.store.internal.IndexedState;
import dev.gadget.core.store.internal.JournaledState;
import dev.gadget.core.store.internal.StoreDirectory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A durable {@link ChatStore} in one directory, in plain Java: what the live path needs is held
 * in memory with the indexes of {@link InMemoryChatStore} (users, tokens, projects, sessions,
 * drones, the running turns, and of each finished turn its id, session, seq and place on disk);
 * finished turns are read from disk when asked for, through a cache bounded by {@link
 * Builder#cacheBytes}, so the heap does not grow with the history's blocks. Every write is
 * appended to a journal file as one JSON record and synced to disk ({@code fdatasync}) <b>before
 * the call returns</b>. A write the store has returned from survives the process being killed and
 * the machine losing power.
 *
 * <pre>{@code
 * try (JournaledChatStore store = JournaledChatStore.open(Path.of(".gadget-data"))) {
 *   store.createUser(user);       // on disk when this returns
 * }
 * }</pre>
 *
 * <p><b>Cost.</b> A write costs one sync of the journal; writers that arrive while a sync runs
 * share the next one (group commit), so throughput grows with concurrency. Every call looks its
 * data up by key or index: its cost does not grow with the number of users, sessions or turns.
 * A read never returns a write that is not on disk yet: it waits for that write's sync, and for
 * no write it cannot reflect (a read of users, projects or sessions does not wait for the block
 * writes of running turns; a session's turns wait for that session's turn writes).
 *
 * <p><b>Opening</b> reads the last snapshot (all but the finished turns) and its binary index
 * (the users, projects and chats, and where each finished turn is kept), and replays the journal written since as metadata only, so it does not grow
 * with the history; a directory of the format before is converted once, in place. A record cut
 * short at the end of the last journal (the process died while appending it, before it was
 * acknowledged) is dropped with a warning; a damaged record anywhere else refuses to open, with
 * a message naming the file and the byte. When the journal has grown past
 * {@link Builder#compactAfterBytes} (and past the last snapshot's size), a background thread
 * writes a new snapshot atomically, copies the finished turns out of journals that are mostly
 * garbage (deleted chats, block records of finished turns) and deletes the journals nothing
 * refers to.
 *
 * <p><b>The directory</b> is locked while the store is open: one process at a time. It and its
 * files are readable by their owner only (prompts, code and tool output live there). Its layout
 * is described in docs/STORE-JOURNAL.md.
 *
 * <p><b>Threading.</b> Thread-safe. Calls block on disk I/O. After {@link #close()} every call
 * throws {@link IllegalStateException}. If the disk fails a write or a sync, that call and every
 * later one throws {@link StoreException} ({@link StoreException.Reason#FAILED}): reopen the
 * directory once the disk is fixed.
 */
public final class JournaledChatStore implements ChatStore, ProviderStore {
  private final StoreDirectory dir;
  private final JournaledState data;

  private JournaledChatStore(Builder b) {
    this.dir = StoreDirectory.open(b.directory);
    try {
      this.data = new JournaledState(dir, b.compactAfterBytes, b.syncTimeout, b.cacheBytes);
    } catch (RuntimeException e) {
      dir.close();
      throw e;
    }
  }

  /**
   * Opens (or creates) the store in {@code directory} with the default settings.
   *
   * @throws StoreException {@link StoreException.Reason#UNAVAILABLE} if another process has the
   *     directory open; {@link StoreException.Reason#FAILED} if it cannot be created or read, or
   *     holds a damaged record
   */
  public static JournaledChatStore open(Path directory) {
    return builder(directory).build();
  }

  /** A builder for the store in {@code directory}. */
  public static Builder builder(Path directory) {
    return new Builder(directory);
  }

  /** The store's directory, absolute. */
  public Path directory() {
    return dir.path();
  }

  /**
   * Compacts now (normally done by itself): copies the finished turns out of journals that are
   * less than half live, writes a snapshot with its index and deletes the journals nothing refers
   * to any more.
   */
  public void compact() {
    data.compactNow();
  }

  // ------------------------------------------------------------------ users and tokens

  @Override
  public void createUser(User user) {
    write(s -> s.checkCreateUser(user));
  }

  @Override
  public Optional<User> findUser(String id) {
    return data.readEntities(s -> s.findUser(id));
  }

  @Override
  public Optional<User> findUserByName(String username) {
    return data.readEntities(s -> s.findUserByName(username));
  }

  @Override
  public void saveToken(StoredToken token) {
    write(s -> s.checkSaveToken(token));
  }

  @Override
  public Optional<StoredToken> findTokenByHash(String hash) {
    return data.readEntities(s -> s.findTokenByHash(hash));
  }

  @Override
  public boolean deleteToken(String tokenId) {
    return write(s -> s.checkDeleteToken(tokenId));
  }

  // ------------------------------------------------------------------ projects and sessions

  @Override
  public void createProject(Project project) {
    write(s -> s.checkCreateProject(project));
  }

  @Override
  public Optional<Project> findProject(String id) {
    return data.readEntities(s -> s.findProject(id));
  }

  @Override
  public List<Project> listProjects(String userId) {
    return data.readEntities(s -> s.listProjects(userId));
  }

  @Override
  public void createSession(ChatSession session) {
    write(s -> s.checkCreateSession(session));
  }

  @Override
  public Optional<ChatSession> findSession(String id) {
    return data.readEntities(s -> s.findSession(id));
  }

  @Override
  public List<ChatSession> listSessions(String userId, String projectId) {
    return data.readEntities(s -> s.listSessions(userId, projectId));
  }

  @Override
  public void setSessionWorkspace(String sessionId, String workspaceId) {
    write(s -> s.checkSetSessionWorkspace(sessionId, workspaceId));
  }

  @Override
  public void setSessionApprovalPolicy(String sessionId, String approvalPolicy) {
    write(s -> s.checkSetSessionApprovalPolicy(sessionId, approvalPolicy));
  }

  @Override
  public void setSessionCreateTools(String sessionId, Boolean createTools) {
    write(s -> s.checkSetSessionCreateTools(sessionId, createTools));
  }

  @Override
  public void renameSession(String sessionId, String name) {
    write(s -> s.checkRenameSession(sessionId, name));
  }

  @Override
  public void renameProject(String projectId, String name) {
    write(s -> s.checkRenameProject(projectId, name));
  }

  /** {@inheritDoc} One journal record. */
  @Override
  public boolean deleteSession(String sessionId) {
    return write(s -> s.checkDeleteSession(sessionId));
  }

  /** {@inheritDoc} One journal record. */
  @Override
  public boolean deleteProject(String projectId) {
    return write(s -> s.checkDeleteProject(projectId));
  }

  // ------------------------------------------------------------------ turns

  @Override
  public void createTurn(ChatTurn turn) {
    write(s -> s.checkCreateTurn(turn));
  }

  @Override
  public Optional<ChatTurn> findTurn(String id) {
    return data.findTurn(id);
  }

  @Override
  public List<ChatTurn> listTurns(String sessionId) {
    return data.listTurns(sessionId);
  }

  @Override
  public List<ChatTurn> listUnfinishedTurns() {
    return read(IndexedState::listUnfinishedTurns);
  }

  /** {@inheritDoc} One journal record of the block alone: the turn is never rewritten. */
  @Override
  public void appendBlock(String turnId, TurnBlock block) {
    write(s -> s.checkAppendBlock(turnId, block));
  }

  /** {@inheritDoc} One journal record of the block alone. */
  @Override
  public void saveBlock(String turnId, TurnBlock block) {
    write(s -> s.checkSaveBlock(turnId, block));
  }

  @Override
  public void setTurnDrone(String turnId, String droneId) {
    write(s -> s.checkSetTurnDrone(turnId, droneId));
  }

  @Override
  public boolean finalizeTurn(
      String turnId, TurnStatus status, TurnStats stats, String error, Instant finishedAt) {
    return write(s -> s.checkFinalizeTurn(turnId, status, stats, error, finishedAt));
  }

  // ------------------------------------------------------------------ drones

  @Override
  public void saveDrone(DroneRegistration drone) {
    write(s -> s.drones().checkSave(drone));
  }

  @Override
  public Optional<DroneRegistration> findDrone(String id) {
    return data.readEntities(s -> s.drones().findDrone(id));
  }

  @Override
  public Optional<DroneRegistration> findDroneByWorkspace(String userId, String workspaceId) {
    return data.readEntities(s -> s.drones().findDroneByWorkspace(userId, workspaceId));
  }

  @Override
  public List<DroneRegistration> listDrones(String userId) {
    return data.readEntities(s -> s.drones().listDrones(userId));
  }

  @Override
  public void updateDroneStatus(String droneId, DroneStatus status, Instant at) {
    write(s -> s.drones().checkUpdateStatus(droneId, status, at));
  }

  /**
   * Waits for a running compaction, syncs the journal, closes it and unlocks the directory.
   * Idempotent.
   */
  @Override
  public void close() {
    try {
      data.close();
    } finally {
      dir.close();
    }
  }

  /** Names the directory. */
  @Override
  public String toString() {
    return "JournaledChatStore[" + dir.path() + "]";
  }

  // ---------------------------------------------------- providers, models and usage totals

  @Override
  public ProviderStore providers() {
    return this;
  }

  @Override
  public void saveProvider(ModelProvider provider) {
    write(s -> s.checkSaveProvider(provider));
  }

  @Override
  public Optional<ModelProvider> findProvider(String id) {
    return data.readEntities(s -> s.providers().findProvider(id));
  }

  @Override
  public List<ModelProvider> listProviders(String userId) {
    return data.readEntities(s -> s.providers().listProviders(userId));
  }

  @Override
  public boolean deleteProvider(String id) {
    return write(s -> s.checkDeleteProvider(id));
  }

  @Override
  public void setSessionModel(String sessionId, String providerId, String modelId) {
    write(s -> s.checkSetSessionModel(sessionId, providerId, modelId));
  }

  @Override
  public void setSessionSampling(String sessionId, Sampling sampling) {
    write(s -> s.checkSetSessionSampling(sessionId, sampling));
  }

  @Override
  public void setSessionToolDeferral(String sessionId, String toolDeferral) {
    write(s -> s.checkSetSessionToolDeferral(sessionId, toolDeferral));
  }

  @Override
  public void addUsage(UsageTotal turnUsage) {
    write(s -> s.checkAddUsage(turnUsage));
  }

  @Override
  public List<UsageTotal> listUsage(String userId) {
    return data.readEntities(s -> s.providers().listUsage(userId));
  }

  // ------------------------------------------------------------------ the two paths

  private boolean write(Function<IndexedState, Change> check) {
    return data.write(check);
  }

  private <T> T read(Function<IndexedState, T> query) {
    return data.read(query);
  }

  /** Configures a {@link JournaledChatStore}. Not thread-safe. */
  public static final class Builder {
    /** The journal size past which a snapshot is written, unless the last one is larger. */
    public static final long DEFAULT_COMPACT_AFTER_BYTES = 8L << 20;
    /** How long a call waits for the disk to confirm a sync. */
    public static final Duration DEFAULT_SYNC_TIMEOUT = Duration.ofSeconds(30);
    /** The heap the cache of finished turns may use. */
    public static final long DEFAULT_CACHE_BYTES = 32L << 20;

    private final Path directory;
    private long compactAfterBytes = DEFAULT_COMPACT_AFTER_BYTES;
    private Duration syncTimeout = DEFAULT_SYNC_TIMEOUT;
    private long cacheBytes = DEFAULT_CACHE_BYTES;

    private Builder(Path directory) {
      this.directory = Objects.requireNonNull(directory, "directory");
    }

    /**
     * Compacts once the current journal is larger than this many bytes and than a quarter of
     * the last snapshot with its index. Default {@value #DEFAULT_COMPACT_AFTER_BYTES} (8 MiB):
     * opening reads the journal written since the last compaction.
     */
    public Builder compactAfterBytes(long bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("compactAfterBytes must be positive: " + bytes);
      }
      this.compactAfterBytes = bytes;
      return this;
    }

    /**
     * How long a call waits for the disk to confirm its write before it fails with
     * {@link StoreException.Reason#FAILED}. Default 30 seconds.
     */
    public Builder syncTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("syncTimeout must be positive: " + timeout);
      }
      this.syncTimeout = timeout;
      return this;
    }

    /**
     * How much heap the cache of finished turns read or written last may use (about twice their
     * JSON); 0 for none. Default {@value #DEFAULT_CACHE_BYTES} (32 MiB). The rest of the heap the
     * store needs is the running turns and about 150 bytes per finished turn, with the users,
     * projects, sessions and drones.
     */
    public Builder cacheBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("cacheBytes must not be negative: " + bytes);
      }
      this.cacheBytes = bytes;
      return this;
    }

    /**
     * Opens the store: locks the directory, loads the snapshot and replays the journals.
     *
     * @throws StoreException {@link StoreException.Reason#UNAVAILABLE} if another process has
     *     the directory open; {@link StoreException.Reason#FAILED} if it cannot be created or
     *     read, or holds a damaged record (the message names the file and the byte)
     */
    public JournaledChatStore build() {
      return new JournaledChatStore(this);
    }
  }
}
