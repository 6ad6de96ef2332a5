package dev.gadget.store.mongo.internal;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.ServerAddress;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.connection.ClusterSettings;
import java.time.Duration;
import java.util.Objects;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The MongoDB client a store uses, made from a connection string and the builder's timeouts or
 * given as it is, with what the store needs to know of it: whether it owns (and so closes) it,
 * the database name, and the hosts and server selection timeout for messages. The hosts never
 * include credentials.
 *
 * @param client the client
 * @param ownsClient whether the store created the client and must close it
 * @param database the database name
 * @param hosts the hosts, or the SRV host name
 * @param serverSelectionTimeout the client's effective server selection timeout
 * @param writeConcern the write concern of every write the store makes
 */
public record Connection(MongoClient client, boolean ownsClient, String database, String hosts,
    Duration serverSelectionTimeout, WriteConcern writeConcern) {
  /** The defaults that {@code MongoChatStore.Builder} publishes. */
  public static final Duration DEFAULT_SERVER_SELECTION_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);
  public static final String DEFAULT_DATABASE = "gadget";
  /** Acknowledged by a majority of the replica set, each in its on-disk journal. */
  public static final WriteConcern DEFAULT_WRITE_CONCERN = WriteConcern.MAJORITY.withJournal(true);

  /**
   * What {@code MongoChatStore.Builder#build} was given: a new client for the connection string,
   * or the given client as it is.
   *
   * @throws IllegalStateException if neither or both of a connection string and a client were
   *     given, or timeouts or settings with a given client
   */
  public static Connection open(String connectionString, MongoClient client, String database,
      Duration serverSelectionTimeout, Duration connectTimeout, Duration readTimeout,
      WriteConcern writeConcern, Consumer<MongoClientSettings.Builder> settings) {
    if ((connectionString == null) == (client == null)) {
      throw new IllegalStateException(
          "set exactly one of connectionString(...) and mongoClient(...)");
    }
    if (client == null) {
      return create(connectionString, database, serverSelectionTimeout, connectTimeout,
          readTimeout, writeConcern, settings);
    }
    if (serverSelectionTimeout != null || connectTimeout != null || readTimeout != null
        || settings != null) {
      throw new IllegalStateException("timeouts and clientSettings(...) apply only to a client "
          + "the store creates from a connection string; configure the given MongoClient instead");
    }
    return of(client, database, writeConcern);
  }

  /**
   * An existing client, which the store will not close.
   *
   * @param database the database, or {@code null} for the default one
   * @param writeConcern the write concern, or {@code null}: the client's, unless that is the
   *     driver's default, else {@link #DEFAULT_WRITE_CONCERN}
   */
  public static Connection of(MongoClient client, String database, WriteConcern writeConcern) {
    ClusterSettings cluster = client.getClusterDescription().getClusterSettings();
    String name = database == null ? DEFAULT_DATABASE : database;
    return new Connection(client, false, name, hosts(cluster),
        Duration.ofMillis(cluster.getServerSelectionTimeout(TimeUnit.MILLISECONDS)),
        writeConcern(writeConcern, client.getDatabase(name).getWriteConcern()));
  }

  /**
   * A new client for {@code connectionString}, which the store will close. A timeout, database
   * or write concern left {@code null} is the connection string's (or, for the write concern, the
   * one {@code settings} set), else the builder's default.
   *
   * @throws IllegalArgumentException if the connection string is malformed (without quoting it)
   */
  public static Connection create(String connectionString, String database,
      Duration serverSelectionTimeout, Duration connectTimeout, Duration readTimeout,
      WriteConcern writeConcern, Consumer<MongoClientSettings.Builder> settings) {
    ConnectionString uri;
    try {
      uri = new ConnectionString(connectionString);
    } catch (RuntimeException e) {
      // The driver's message may quote the string, credentials included: do not pass it on.
      throw new IllegalArgumentException("malformed MongoDB connection string");
    }
    Duration selection = pick(serverSelectionTimeout, uri.getServerSelectionTimeout(),
        DEFAULT_SERVER_SELECTION_TIMEOUT);
    Duration connect = pick(connectTimeout, uri.getConnectTimeout(),
        DEFAULT_CONNECT_TIMEOUT);
    Duration read = pick(readTimeout, uri.getSocketTimeout(),
        DEFAULT_READ_TIMEOUT);
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
    return new Connection(MongoClients.create(built), true, name, hosts, effective,
        writeConcern(writeConcern, built.getWriteConcern()));
  }

  /** The hosts and the database, for messages: never credentials. */
  public String where() {
    return hosts + "/" + database;
  }

  /** Names the hosts and the database only: the client's settings may hold credentials. */
  @Override
  public String toString() {
    return "Connection[" + where() + "]";
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

  /** The explicit one, else the client's unless it is the driver's default, else ours. */
  private static WriteConcern writeConcern(WriteConcern explicit, WriteConcern client) {
    if (explicit != null) {
      return explicit;
    }
    return client == null || client.equals(WriteConcern.ACKNOWLEDGED)
        ? DEFAULT_WRITE_CONCERN
        : client;
  }

  private static Duration pick(Duration explicit, Integer fromUriMillis, Duration fallback) {
    if (explicit != null) {
      return explicit;
    }
    return fromUriMillis != null ? Duration.ofMillis(fromUriMillis) : fallback;
  }

  /** {@code d}, checked to be positive; {@code name} is the setting's, for the message. */
  public static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
    return d;
  }

  /** {@code database}, checked to be a name MongoDB accepts. */
  public static String databaseName(String database) {
    Objects.requireNonNull(database, "database");
    if (database.isEmpty() || database.matches(".*[/\\\\. \"$].*")) {
      throw new IllegalArgumentException("not a valid MongoDB database name: " + database);
    }
    return database;
  }
}
