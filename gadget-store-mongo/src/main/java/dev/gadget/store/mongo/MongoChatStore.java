package dev.gadget.store.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.ne;
import static com.mongodb.client.model.Sorts.ascending;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.ServerAddress;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import com.mongodb.connection.ClusterSettings;
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
import dev.gadget.core.spi.StoreException;
import dev.gadget.store.mongo.internal.Codecs;
import dev.gadget.store.mongo.internal.Errors;
import dev.gadget.store.mongo.internal.Schema;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p><b>Documents.</b> One collection per entity ({@code users}, {@code tokens},
 * {@code projects}, {@code chatSessions}, {@code chatTurns}, {@code drones}) with the field names
 * of docs/MODEL.md; instants are BSON dates (milliseconds), and an instant finer than that
 * keeps the rest in a companion {@code <field>Nanos} field, so instants come back exactly. A
 * turn holds its ordered blocks and its tool calls. docs/STORE-MONGO.md describes
 * every document and index.
 *
 * <p><b>Writes.</b> Creating a turn is one insert; appending a block is one {@code updateOne}
 * that {@code $push}es the block (and, for a tool block, its call) onto the turn, filtered on the
 * block's {@code seq} not being there yet, so a replayed block changes nothing; finalizing a turn
 * is one {@code updateOne} filtered on {@code status: "processing"}, so exactly one of several
 * racing callers wins. No write rewrites a turn or a session's history, and nothing needs a
 * multi-document transaction. Order always comes from {@code seq} and {@code _id}, never from
 * timestamps.
 *
 * <p><b>Indexes</b> are created when the store is built. If the database cannot be reached then,
 * {@link Builder#build()} still returns (after logging a warning) and the indexes are created by
 * the first operation that reaches it; no operation runs before they exist.
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
  private static final Logger log = LoggerFactory.getLogger(MongoChatStore.class);
  private static final String PROCESSING = Codecs.wire(TurnStatus.PROCESSING);

  private final MongoClient client;
  private final boolean ownsClient;
  private final String databaseName;
  private final String where;
  private final Errors errors;
  private final MongoDatabase db;
  private final MongoCollection<Document> users;
  private final MongoCollection<Document> tokens;
  private final MongoCollection<Document> projects;
  private final MongoCollection<Document> sessions;
  private final MongoCollection<Document> turns;
  private final MongoCollection<Document> drones;
  private volatile boolean indexesReady;
  private volatile boolean closed;

  private MongoChatStore(MongoClient client, boolean ownsClient, String databaseName,
      String hosts, Duration serverSelectionTimeout) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.databaseName = databaseName;
    this.where = hosts + "/" + databaseName;
    this.errors = new Errors(where, serverSelectionTimeout);
    this.db = client.getDatabase(databaseName);
    this.users = db.getCollection(Schema.USERS);
    this.tokens = db.getCollection(Schema.TOKENS);
    this.projects = db.getCollection(Schema.PROJECTS);
    this.sessions = db.getCollection(Schema.SESSIONS);
    this.turns = db.getCollection(Schema.TURNS);
    this.drones = db.getCollection(Schema.DRONES);
  }

  /** A builder with the defaults described on its methods. */
  public static Builder builder() {
    return new Builder();
  }

  /** The name of the database this store uses. */
  public String databaseName() {
    return databaseName;
  }

  // ---- users and tokens

  @Override
  public void createUser(User user) {
    Objects.requireNonNull(user, "user");
    run("createUser", "user " + user.username() + " (or id " + user.id() + ")",
        () -> users.insertOne(Codecs.user(user)));
  }

  @Override
  public Optional<User> findUser(String id) {
    return findOne("findUser", users, eq("_id", id), Codecs::user);
  }

  @Override
  public Optional<User> findUserByName(String username) {
    return findOne("findUserByName", users, eq("username", username), Codecs::user);
  }

  @Override
  public void saveToken(StoredToken token) {
    Objects.requireNonNull(token, "token");
    run("saveToken", "token " + token.id() + " (or its hash)", () -> {
      if (users.find(eq("_id", token.userId())).projection(new Document("_id", 1)).first()
          == null) {
        throw notFound("user " + token.userId());
      }
      tokens.insertOne(Codecs.token(token));
    });
  }

  @Override
  public Optional<StoredToken> findTokenByHash(String hash) {
    return findOne("findTokenByHash", tokens, eq("hash", hash), Codecs::token);
  }

  @Override
  public boolean deleteToken(String tokenId) {
    return call("deleteToken", "token " + tokenId,
        () -> tokens.deleteOne(eq("_id", tokenId)).getDeletedCount() == 1);
  }

  // ---- projects and sessions

  @Override
  public void createProject(Project project) {
    Objects.requireNonNull(project, "project");
    run("createProject", "project " + project.id(),
        () -> projects.insertOne(Codecs.project(project)));
  }

  @Override
  public Optional<Project> findProject(String id) {
    return findOne("findProject", projects, eq("_id", id), Codecs::project);
  }

  @Override
  public List<Project> listProjects(String userId) {
    return findAll("listProjects", projects, eq("userId", userId), ascending("_id"),
        Codecs::project);
  }

  @Override
  public void createSession(ChatSession session) {
    Objects.requireNonNull(session, "session");
    run("createSession", "chat session " + session.id(),
        () -> sessions.insertOne(Codecs.session(session)));
  }

  @Override
  public Optional<ChatSession> findSession(String id) {
    return findOne("findSession", sessions, eq("_id", id), Codecs::session);
  }

  @Override
  public List<ChatSession> listSessions(String userId, String projectId) {
    Bson filter = projectId == null
        ? eq("userId", userId)
        : and(eq("userId", userId), eq("projectId", projectId));
    return findAll("listSessions", sessions, filter, ascending("_id"), Codecs::session);
  }

  @Override
  public void setSessionWorkspace(String sessionId, String workspaceId) {
    Bson update = workspaceId == null
        ? Updates.unset("workspaceId")
        : Updates.set("workspaceId", workspaceId);
    updateExisting("setSessionWorkspace", sessions, "chat session " + sessionId, sessionId,
        update);
  }

  // ---- turns

  @Override
  public void createTurn(ChatTurn turn) {
    Objects.requireNonNull(turn, "turn");
    run("createTurn", "chat turn " + turn.id(), () -> turns.insertOne(Codecs.turn(turn)));
  }

  @Override
  public Optional<ChatTurn> findTurn(String id) {
    return findOne("findTurn", turns, eq("_id", id), Codecs::turn);
  }

  @Override
  public List<ChatTurn> listTurns(String sessionId) {
    return findAll("listTurns", turns, eq("sessionId", sessionId), ascending("seq", "_id"),
        Codecs::turn);
  }

  @Override
  public List<ChatTurn> listUnfinishedTurns() {
    return findAll("listUnfinishedTurns", turns, eq("status", PROCESSING), ascending("_id"),
        Codecs::turn);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One {@code updateOne}: {@code {_id: turnId, "blocks.seq": {$ne: seq}}} with
   * {@code $push} of the block (and of its call onto {@code toolCalls} for a tool block). Only
   * when that matches nothing does the store read the turn, to tell a replay from a missing turn.
   */
  @Override
  public void appendBlock(String turnId, TurnBlock block) {
    Objects.requireNonNull(block, "block");
    Bson push = Updates.push("blocks", Codecs.block(block));
    if (block instanceof TurnBlock.Tool tool) {
      push = Updates.combine(push, Updates.push("toolCalls", Codecs.toolCall(tool.content())));
    }
    Bson update = push;
    run("appendBlock", "chat turn " + turnId, () -> {
      UpdateResult r = turns.updateOne(
          and(eq("_id", turnId), ne("blocks.seq", block.seq())), update);
      if (r.getMatchedCount() == 0 && !exists(turns, turnId)) {
        throw notFound("chat turn " + turnId);
      }
    });
  }

  @Override
  public void setTurnDrone(String turnId, String droneId) {
    Bson update = droneId == null ? Updates.unset("droneId") : Updates.set("droneId", droneId);
    updateExisting("setTurnDrone", turns, "chat turn " + turnId, turnId, update);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One {@code updateOne} filtered on {@code {_id: turnId, status: "processing"}} that sets
   * the status, {@code finishedAt}, the stats (unless {@code null}) and the error (or removes it).
   */
  @Override
  public boolean finalizeTurn(
      String turnId, TurnStatus status, TurnStats stats, String error, Instant finishedAt) {
    if (!Objects.requireNonNull(status, "status").isTerminal()) {
      throw new IllegalArgumentException("not a terminal status: " + status);
    }
    Objects.requireNonNull(finishedAt, "finishedAt");
    List<Bson> sets = new ArrayList<>();
    sets.add(Updates.set("status", Codecs.wire(status)));
    sets.addAll(Codecs.setInstant("finishedAt", finishedAt));
    if (stats != null) {
      sets.add(Updates.set("stats", Codecs.stats(stats)));
    }
    sets.add(error == null ? Updates.unset("error") : Updates.set("error", error));
    Bson update = Updates.combine(sets);
    return call("finalizeTurn", "chat turn " + turnId, () -> turns.updateOne(
        and(eq("_id", turnId), eq("status", PROCESSING)), update).getMatchedCount() == 1);
  }

  // ---- drones

  @Override
  public void saveDrone(DroneRegistration drone) {
    Objects.requireNonNull(drone, "drone");
    run("saveDrone", "drone " + drone.id(), () -> drones.replaceOne(
        eq("_id", drone.id()), Codecs.drone(drone), new ReplaceOptions().upsert(true)));
  }

  @Override
  public Optional<DroneRegistration> findDrone(String id) {
    return findOne("findDrone", drones, eq("_id", id), Codecs::drone);
  }

  /** {@inheritDoc} If several match, the one with the smallest id. */
  @Override
  public Optional<DroneRegistration> findDroneByWorkspace(String userId, String workspaceId) {
    return call("findDroneByWorkspace", "drone", () -> Optional.ofNullable(
        drones.find(and(eq("userId", userId), eq("workspaceId", workspaceId)))
            .sort(ascending("_id")).first()).map(Codecs::drone));
  }

  @Override
  public List<DroneRegistration> listDrones(String userId) {
    return findAll("listDrones", drones, eq("userId", userId), ascending("_id"), Codecs::drone);
  }

  @Override
  public void updateDroneStatus(String droneId, DroneStatus status, Instant at) {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(at, "at");
    List<Bson> sets = new ArrayList<>();
    sets.add(Updates.set("status", Codecs.wire(status)));
    sets.addAll(Codecs.setInstant("lastSeenAt", at));
    updateExisting("updateDroneStatus", drones, "drone " + droneId, droneId,
        Updates.combine(sets));
  }

  /** Closes the MongoDB client if this store created it. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (ownsClient) {
      client.close();
    }
  }

  /** Names the hosts and the database; never credentials. */
  @Override
  public String toString() {
    return "MongoChatStore[" + where + "]";
  }

  // ---- plumbing

  /** Creates the indexes now; an unreachable database defers them to the first operation. */
  private void start() {
    try {
      call("createIndexes", "index", () -> null);
    } catch (StoreException e) {
      if (e.reason() != StoreException.Reason.UNAVAILABLE) {
        throw e;
      }
      log.warn("Indexes for {} not created yet; the first operation that reaches the database "
          + "will create them", where);
    }
  }

  private void ensureIndexes(String operation) {
    if (indexesReady) {
      return;
    }
    // No lock: createIndexes is idempotent, and a lock would queue callers behind one timeout.
    try {
      for (String name : Schema.COLLECTIONS) {
        db.getCollection(name).createIndexes(Schema.INDEXES.get(name));
      }
    } catch (RuntimeException e) {
      if (Errors.isUnavailable(e)) {
        throw errors.translate(operation, "indexes", e);
      }
      // Not DUPLICATE even for error 11000: existing documents break a unique index.
      throw new StoreException(StoreException.Reason.FAILED, "cannot create the indexes in "
          + where + " (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", e);
    }
    indexesReady = true;
    log.debug("Indexes ready in {}", where);
  }

  private <T> T call(String operation, String what, Supplier<T> body) {
    if (closed) {
      throw new IllegalStateException("MongoChatStore is closed");
    }
    try {
      ensureIndexes(operation);
      T result = body.get();
      errors.reached();
      return result;
    } catch (StoreException e) {
      if (e.reason() != StoreException.Reason.UNAVAILABLE) {
        errors.reached();
      }
      throw e;
    } catch (IllegalStateException e) {
      if (closed) {
        throw new IllegalStateException("MongoChatStore is closed", e);
      }
      throw errors.translate(operation, what, e);
    } catch (RuntimeException e) {
      throw errors.translate(operation, what, e);
    }
  }

  private void run(String operation, String what, Runnable body) {
    call(operation, what, () -> {
      body.run();
      return null;
    });
  }

  private <T> Optional<T> findOne(String operation, MongoCollection<Document> collection,
      Bson filter, Function<Document, T> decode) {
    return call(operation, operation,
        () -> Optional.ofNullable(collection.find(filter).first()).map(decode));
  }

  private <T> List<T> findAll(String operation, MongoCollection<Document> collection,
      Bson filter, Bson sort, Function<Document, T> decode) {
    return call(operation, operation, () -> {
      List<T> out = new ArrayList<>();
      for (Document d : collection.find(filter).sort(sort)) {
        out.add(decode.apply(d));
      }
      return out;
    });
  }

  private void updateExisting(String operation, MongoCollection<Document> collection,
      String what, String id, Bson update) {
    run(operation, what, () -> {
      if (collection.updateOne(eq("_id", id), update).getMatchedCount() == 0) {
        throw notFound(what);
      }
    });
  }

  private static boolean exists(MongoCollection<Document> collection, String id) {
    return collection.find(eq("_id", id)).projection(new Document("_id", 1)).first() != null;
  }

  private static StoreException notFound(String what) {
    return new StoreException(StoreException.Reason.NOT_FOUND, what + " not found");
  }

  /**
   * Configures and builds a {@link MongoChatStore}. Either give a connection string (the store
   * then creates and owns its client) or an existing {@link MongoClient} (which the store uses
   * but never closes). Not thread-safe; {@link #build()} may be called more than once.
   */
  public static final class Builder {
    /** The server selection timeout when neither the builder nor the URI sets one. */
    public static final Duration DEFAULT_SERVER_SELECTION_TIMEOUT = Duration.ofSeconds(5);
    /** The connect timeout when neither the builder nor the URI sets one. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** The read timeout when neither the builder nor the URI sets one. */
    public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);
    /** The database when neither the builder nor the URI names one. */
    public static final String DEFAULT_DATABASE = "gadget";

    private String connectionString;
    private MongoClient client;
    private String database;
    private Duration serverSelectionTimeout;
    private Duration connectTimeout;
    private Duration readTimeout;
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
      Objects.requireNonNull(database, "database");
      if (database.isEmpty() || database.matches(".*[/\\\\. \"$].*")) {
        throw new IllegalArgumentException("not a valid MongoDB database name: " + database);
      }
      this.database = database;
      return this;
    }

    /**
     * How long an operation waits for a reachable server before failing with
     * {@link StoreException.Reason#UNAVAILABLE}. Default: the connection string's
     * {@code serverSelectionTimeoutMS}, else 5 seconds.
     */
    public Builder serverSelectionTimeout(Duration timeout) {
      this.serverSelectionTimeout = positive(timeout, "serverSelectionTimeout");
      return this;
    }

    /**
     * How long opening a connection may take. Default: the connection string's
     * {@code connectTimeoutMS}, else 5 seconds.
     */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positive(timeout, "connectTimeout");
      return this;
    }

    /**
     * How long to wait for a server's answer on an open connection. Default: the connection
     * string's {@code socketTimeoutMS}, else 30 seconds. Bounds how long an operation can hang on
     * a server that stops answering.
     */
    public Builder readTimeout(Duration timeout) {
      this.readTimeout = positive(timeout, "readTimeout");
      return this;
    }

    /**
     * Changes the driver's settings after the connection string and the timeouts above are
     * applied, for anything else (TLS, credentials, pool size, command listeners). Called once
     * per {@link #build()}.
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
      if ((connectionString == null) == (client == null)) {
        throw new IllegalStateException(
            "set exactly one of connectionString(...) and mongoClient(...)");
      }
      if (client != null && (serverSelectionTimeout != null || connectTimeout != null
          || readTimeout != null || settings != null)) {
        throw new IllegalStateException("timeouts and clientSettings(...) apply only to a client "
            + "the store creates from a connection string; configure the given MongoClient instead");
      }
      MongoChatStore store = client != null ? fromClient() : fromConnectionString();
      try {
        store.start();
      } catch (RuntimeException e) {
        store.close();
        throw e;
      }
      return store;
    }

    private MongoChatStore fromClient() {
      ClusterSettings cluster = client.getClusterDescription().getClusterSettings();
      String hosts = hosts(cluster);
      Duration selection =
          Duration.ofMillis(cluster.getServerSelectionTimeout(TimeUnit.MILLISECONDS));
      return new MongoChatStore(client, false, database == null ? DEFAULT_DATABASE : database,
          hosts, selection);
    }

    private MongoChatStore fromConnectionString() {
      ConnectionString uri;
      try {
        uri = new ConnectionString(connectionString);
      } catch (RuntimeException e) {
        // The driver's message may quote the string, credentials included: do not pass it on.
        throw new IllegalArgumentException("malformed MongoDB connection string");
      }
      Duration selection = pick(serverSelectionTimeout, uri.getServerSelectionTimeout(),
          DEFAULT_SERVER_SELECTION_TIMEOUT);
      Duration connect = pick(connectTimeout, uri.getConnectTimeout(), DEFAULT_CONNECT_TIMEOUT);
      Duration read = pick(readTimeout, uri.getSocketTimeout(), DEFAULT_READ_TIMEOUT);
      MongoClientSettings.Builder b = MongoClientSettings.builder()
          .applyConnectionString(uri)
          .applyToClusterSettings(
              c -> c.serverSelectionTimeout(selection.toMillis(), TimeUnit.MILLISECONDS))
          .applyToSocketSettings(s -> s
              .connectTimeout(connect.toMillis(), TimeUnit.MILLISECONDS)
              .readTimeout(read.toMillis(), TimeUnit.MILLISECONDS));
      if (uri.getApplicationName() == null) {
        b.applicationName("gadget");
      }
      if (settings != null) {
        settings.accept(b);
      }
      MongoClientSettings built = b.build();
      ClusterSettings cluster = built.getClusterSettings();
      String hosts = hosts(cluster);
      String name = database != null ? database
          : uri.getDatabase() != null ? uri.getDatabase() : DEFAULT_DATABASE;
      Duration effective =
          Duration.ofMillis(cluster.getServerSelectionTimeout(TimeUnit.MILLISECONDS));
      return new MongoChatStore(MongoClients.create(built), true, name, hosts, effective);
    }

    /** The hosts, or the SRV host name, for messages: never credentials. */
    private static String hosts(ClusterSettings cluster) {
      if (cluster.getSrvHost() != null) {
        return cluster.getSrvHost();
      }
      List<String> out = new ArrayList<>();
      for (ServerAddress a : cluster.getHosts()) {
        out.add(a.toString());
      }
      return String.join(",", out);
    }

    private static Duration pick(Duration explicit, Integer fromUriMillis, Duration fallback) {
      if (explicit != null) {
        return explicit;
      }
      return fromUriMillis != null ? Duration.ofMillis(fromUriMillis) : fallback;
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + d);
      }
      return d;
    }
  }
}
