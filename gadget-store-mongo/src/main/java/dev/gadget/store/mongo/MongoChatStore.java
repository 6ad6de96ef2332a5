package dev.gadget.store.mongo;

import com.mongodb.MongoClientSettings;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ProviderStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.store.mongo.internal.Connection;
import dev.gadget.store.mongo.internal.Deletions;
import dev.gadget.store.mongo.internal.Drones;
import dev.gadget.store.mongo.internal.FencedTurns;
import dev.gadget.store.mongo.internal.Operations;
import dev.gadget.store.mongo.internal.Projects;
import dev.gadget.store.mongo.internal.Providers;
import dev.gadget.store.mongo.internal.Sessions;
import dev.gadget.store.mongo.internal.Turns;
import dev.gadget.store.mongo.internal.Users;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * A {@link ChatStore} on MongoDB through the official sync driver. Build one with
 * {@link #builder()}:
 *
 * <pre>{@code
 * ChatStore store = MongoChatStore.builder()
 *     .connectionString("mongodb://127.0.0.1:27017")
 *     .database("gadget")
 *     .build();
 * }</pre>
 *
 * <p><b>Documents.</b> One collection per entity (docs/STORE-MONGO.md describes each document
 * and index; users' providers and usage totals are in {@link #providers()}) with the field names
 * of docs/MODEL.md; instants are BSON dates, plus a {@code <field>Nanos} field for the rest of
 * an instant finer than milliseconds. A turn holds its ordered blocks and its tool calls.
 * <p><b>Writes.</b> Creating a turn is one insert; appending a block is one {@code updateOne}
 * that {@code $push}es the block (and its call) filtered on its {@code seq} not being there yet,
 * so a replay changes nothing; finalizing is one {@code updateOne} filtered on {@code status:
 * "processing"}, so exactly one of racing callers wins; a fenced one also on the turn's {@code
 * fence} (not greater), which it {@code $max}es. No write rewrites a turn or a history, none
 * needs a transaction, and every filter starts with the {@code _id}. Writes wait for
 * {@code {w: "majority", j: true}} unless told otherwise ({@link Builder#writeConcern}). Order
 * always comes from {@code seq} and {@code _id}, never from timestamps.
 * <p><b>Indexes</b> are created at build, or (a database out of reach, logged) by the first
 * operation that reaches it; no operation runs before they exist.
 *
 * <p><b>Failures.</b> Every method either completes or throws {@link StoreException}: a taken id,
 * username or token hash (server error 11000) is {@link StoreException.Reason#DUPLICATE}; a
 * database that cannot be reached or does not answer in time is
 * {@link StoreException.Reason#UNAVAILABLE}, after at most the server selection timeout (or the
 * read timeout for a server that stops answering mid-operation); a document the store cannot read
 * is {@link StoreException.Reason#FAILED}. Driver exceptions never escape. The store recovers by
 * itself when the database comes back. An outage is logged at WARN once, then at DEBUG.
 *
 * <p><b>Threading.</b> Thread-safe; every method blocks the calling thread on network I/O, so
 * do not call it from an event loop that must not block. {@link #close()} closes the client if
 * the store created it; methods called after {@code close()} throw {@link IllegalStateException}.
 */
public final class MongoChatStore implements ChatStore {
  private final Connection connection;
  private final Operations ops;
  private final Users users;
  private final Projects projects;
  private final Sessions sessions;
  private final Turns turns;
  private final FencedTurns fenced;
  private final Drones drones;
  private final Providers providers;
  private final Deletions deletions;

  private MongoChatStore(Connection connection) {
    this.connection = connection;
    this.ops = new Operations(connection);
    this.users = new Users(ops);
    this.projects = new Projects(ops);
    this.sessions = new Sessions(ops);
    this.turns = new Turns(ops);
    this.fenced = new FencedTurns(ops);
    this.drones = new Drones(ops);
    this.providers = new Providers(ops);
    this.deletions = new Deletions(ops);
  }

  /** A builder with the defaults described on its methods. */
  public static Builder builder() {
    return new Builder();
  }

  /** The name of the database this store uses. */
  public String databaseName() {
    return connection.database();
  }

  /** The write concern of every write this store makes (see {@link Builder#writeConcern}). */
  public WriteConcern writeConcern() {
    return connection.writeConcern();
  }

  @Override
  public void createUser(User user) {
    users.createUser(user);
  }

  @Override
  public Optional<User> findUser(String id) {
    return users.findUser(id);
  }

  @Override
  public Optional<User> findUserByName(String username) {
    return users.findUserByName(username);
  }

  @Override
  public void saveToken(StoredToken token) {
    users.saveToken(token);
  }

  @Override
  public Optional<StoredToken> findTokenByHash(String hash) {
    return users.findTokenByHash(hash);
  }

  @Override
  public boolean deleteToken(String tokenId) {
    return users.deleteToken(tokenId);
  }

  @Override
  public void createProject(Project project) {
    projects.createProject(project);
  }

  @Override
  public Optional<Project> findProject(String id) {
    return projects.findProject(id);
  }

  @Override
  public List<Project> listProjects(String userId) {
    return projects.listProjects(userId);
  }

  @Override
  public void createSession(ChatSession session) {
    sessions.createSession(session);
  }

  @Override
  public Optional<ChatSession> findSession(String id) {
    return sessions.findSession(id);
  }

  @Override
  public List<ChatSession> listSessions(String userId, String projectId) {
    return sessions.listSessions(userId, projectId);
  }

  @Override
  public void renameSession(String sessionId, String name) {
    sessions.renameSession(sessionId, name);
  }

  @Override
  public void renameProject(String projectId, String name) {
    projects.renameProject(projectId, name);
  }

  @Override
  public boolean deleteSession(String sessionId) {
    return deletions.deleteSession(sessionId);
  }

  @Override
  public boolean deleteProject(String projectId) {
    return deletions.deleteProject(projectId);
  }

  @Override
  public void setSessionWorkspace(String sessionId, String workspaceId) {
    sessions.setSessionWorkspace(sessionId, workspaceId);
  }

  @Override
  public void setSessionApprovalPolicy(String sessionId, String approvalPolicy) {
    sessions.setSessionApprovalPolicy(sessionId, approvalPolicy);
  }

  @Override
  public void setSessionCreateTools(String sessionId, Boolean createTools) {
    sessions.setSessionCreateTools(sessionId, createTools);
  }

  @Override
  public void createTurn(ChatTurn turn) {
    turns.createTurn(turn);
  }

  @Override
  public Optional<ChatTurn> findTurn(String id) {
    return turns.findTurn(id);
  }

  @Override
  public List<ChatTurn> listTurns(String sessionId) {
    return turns.listTurns(sessionId);
  }

  @Override
  public List<ChatTurn> listUnfinishedTurns() {
    return turns.listUnfinishedTurns();
  }

  /** {@inheritDoc} One {@code updateOne} of the block alone (see {@code Turns.appendBlock}). */
  @Override
  public void appendBlock(String turnId, TurnBlock block) {
    turns.appendBlock(turnId, block);
  }

  /** {@inheritDoc} One {@code updateOne} of the block alone (two when it is new). */
  @Override
  public void saveBlock(String turnId, TurnBlock block) {
    turns.saveBlock(turnId, block);
  }

  @Override
  public void setTurnDrone(String turnId, String droneId) {
    turns.setTurnDrone(turnId, droneId);
  }

  /** {@inheritDoc} One {@code updateOne} filtered on {@code status: "processing"}. */
  @Override
  public boolean finalizeTurn(
      String turnId, TurnStatus status, TurnStats stats, String error, Instant finishedAt) {
    return turns.finalizeTurn(turnId, status, stats, error, finishedAt);
  }

  /** {@inheritDoc} Yes: a turn's fence is its document's {@code fence} field. */
  @Override
  public boolean fencesTurns() {
    return true;
  }

  @Override
  public void claimTurn(String turnId, long fence) {
    fenced.claimTurn(turnId, fence);
  }

  @Override
  public void claimTurn(String turnId, long fence, String holder) {
    fenced.claimTurn(turnId, fence, holder);
  }

  @Override
  public void appendBlock(String turnId, TurnBlock block, long fence) {
    fenced.appendBlock(turnId, block, fence);
  }

  @Override
  public void saveBlock(String turnId, TurnBlock block, long fence) {
    fenced.saveBlock(turnId, block, fence);
  }

  @Override
  public boolean finalizeTurn(String turnId, TurnStatus status, TurnStats stats, String error,
      Instant finishedAt, long fence) {
    return fenced.finalizeTurn(turnId, status, stats, error, finishedAt, fence);
  }

  @Override
  public void saveDrone(DroneRegistration drone) {
    drones.saveDrone(drone);
  }

  @Override
  public Optional<DroneRegistration> findDrone(String id) {
    return drones.findDrone(id);
  }

  /** {@inheritDoc} If several match, the one with the smallest id. */
  @Override
  public Optional<DroneRegistration> findDroneByWorkspace(String userId, String workspaceId) {
    return drones.findDroneByWorkspace(userId, workspaceId);
  }

  @Override
  public List<DroneRegistration> listDrones(String userId) {
    return drones.listDrones(userId);
  }

  @Override
  public void updateDroneStatus(String droneId, DroneStatus status, Instant at) {
    drones.updateDroneStatus(droneId, status, at);
  }

  @Override
  public ProviderStore providers() {
    return providers;
  }
  /** Closes the MongoDB client if this store created it. Idempotent. */
  @Override
  public void close() {
    if (ops.close() && connection.ownsClient()) {
      connection.client().close();
    }
  }

  /** Names the hosts and the database; never credentials. */
  @Override
  public String toString() {
    return "MongoChatStore[" + connection.where() + "]";
  }

  /**
   * Configures and builds a {@link MongoChatStore}. Either give a connection string (the store
   * then creates and owns its client) or an existing {@link MongoClient} (which the store uses
   * but never closes). Not thread-safe; {@link #build()} may be called more than once.
   */
  public static final class Builder {
    /** The server selection timeout when neither the builder nor the URI sets one. */
    public static final Duration DEFAULT_SERVER_SELECTION_TIMEOUT =
        Connection.DEFAULT_SERVER_SELECTION_TIMEOUT;
    /** The connect timeout when neither the builder nor the URI sets one. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Connection.DEFAULT_CONNECT_TIMEOUT;
    /** The read timeout when neither the builder nor the URI sets one. */
    public static final Duration DEFAULT_READ_TIMEOUT = Connection.DEFAULT_READ_TIMEOUT;
    /** The database when neither the builder nor the URI names one. */
    public static final String DEFAULT_DATABASE = Connection.DEFAULT_DATABASE;
    /** The write concern when neither the builder, the URI nor the client sets one. */
    public static final WriteConcern DEFAULT_WRITE_CONCERN = Connection.DEFAULT_WRITE_CONCERN;

    private String connectionString;
    private MongoClient client;
    private String database;
    private Duration serverSelectionTimeout;
    private Duration connectTimeout;
    private Duration readTimeout;
    private WriteConcern writeConcern;
    private Consumer<MongoClientSettings.Builder> settings;

    private Builder() {}

    /**
     * The MongoDB connection string, such as {@code mongodb://127.0.0.1:27017} or a
     * {@code mongodb+srv://} URI. Its credentials are never logged or shown in messages.
     */
    public Builder connectionString(String connectionString) {
      this.connectionString = Objects.requireNonNull(connectionString, "connectionString");
      return this;
    }

    /**
     * An existing client to use instead of a connection string. The store does not close it,
     * and the timeouts and {@link #clientSettings} of this builder do not apply to it.
     */
    public Builder mongoClient(MongoClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * The database to use. Default: the one the connection string names, else
     * {@value #DEFAULT_DATABASE}.
     */
    public Builder database(String database) {
      this.database = Connection.databaseName(database);
      return this;
    }

    /**
     * How long an operation waits for a reachable server before failing with
     * {@link StoreException.Reason#UNAVAILABLE}. Default: the connection string's
     * {@code serverSelectionTimeoutMS}, else 5 seconds.
     */
    public Builder serverSelectionTimeout(Duration timeout) {
      this.serverSelectionTimeout = Connection.positive(timeout, "serverSelectionTimeout");
      return this;
    }

    /** How long opening a connection may take. Default: {@code connectTimeoutMS}, else 5 s. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = Connection.positive(timeout, "connectTimeout");
      return this;
    }

    /**
     * How long to wait for a server's answer on an open connection. Default: the connection
     * string's {@code socketTimeoutMS}, else 30 seconds. Bounds how long an operation can hang on
     * a server that stops answering.
     */
    public Builder readTimeout(Duration timeout) {
      this.readTimeout = Connection.positive(timeout, "readTimeout");
      return this;
    }

    /**
     * The write concern of every write (also with a given {@link #mongoClient client}). Default:
     * the connection string's ({@code w}, {@code journal}) or the client's, else {@link
     * #DEFAULT_WRITE_CONCERN} ({@code {w: "majority", j: true}}): a write returns once a majority
     * of the replica set (a standalone server: the server) has it in its on-disk journal, so it
     * survives a crash of the primary and a failover. The wait is bounded by the read timeout.
     */
    public Builder writeConcern(WriteConcern writeConcern) {
      this.writeConcern = Objects.requireNonNull(writeConcern, "writeConcern");
      return this;
    }

    /**
     * Changes the driver's settings after the connection string and the timeouts above, for
     * anything else (TLS, credentials, pool size, command listeners). Once per {@link #build()}.
     */
    public Builder clientSettings(Consumer<MongoClientSettings.Builder> settings) {
      this.settings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * Builds the store, creating its client unless one was given, and creates the indexes. If
     * the database cannot be reached, this returns after the server selection timeout and
     * logs a warning; the indexes are then created by the first operation that reaches it.
     *
     * @throws IllegalStateException if neither or both of a connection string and a client were
     *     given
     * @throws IllegalArgumentException if the connection string is malformed
     * @throws StoreException if the database answered but refused the indexes (for example,
     *     existing documents with duplicate usernames)
     */
    public MongoChatStore build() {
      MongoChatStore store = new MongoChatStore(Connection.open(connectionString, client,
          database, serverSelectionTimeout, connectTimeout, readTimeout, writeConcern, settings));
      store.ops.createIndexesOrDefer(store::close);
      return store;
    }
  }
}
