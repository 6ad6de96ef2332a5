package dev.gadget.examples;

import dev.gadget.core.server.SecretKeys;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.JournaledChatStore;
import dev.gadget.store.mongo.MongoChatStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** Opens the store the command line names: the embedded default or {@code --mongo URI}. */
final class Stores {
  static final String DEFAULT_DATA_DIR = ".gadget-data";
  /** The file of the embedded store of Gadget before the journaled store. */
  static final String OLD_STORE_FILE = "gadget.mv";

  static final List<OptionSpec> OPTIONS = List.of(
      OptionSpec.value("data-dir", "DIR",
          "where the embedded store keeps its files (default " + DEFAULT_DATA_DIR + ")"),
      OptionSpec.value("store-cache", "MB",
          "heap the embedded store may use to cache finished turns read from disk (default "
              + (JournaledChatStore.Builder.DEFAULT_CACHE_BYTES >> 20) + ")"),
      OptionSpec.value("mongo", "URI",
          "use this MongoDB instead of the embedded store, e.g. mongodb://127.0.0.1:27017"),
      OptionSpec.value("database", "NAME", "the MongoDB database (default gadget)"));

  private Stores() {}

  /**
   * A store and where it is.
   *
   * @param store the store
   * @param description where it is, for a person (never a password)
   * @param directory the embedded store's data directory, or {@code null} for MongoDB
   */
  record Opened(ChatStore store, String description, Path directory) implements AutoCloseable {
    @Override
    public void close() {
      store.close();
    }
  }

  /** Whether the command line names MongoDB rather than the embedded store. */
  static boolean isMongo(Args args) {
    return args.get("mongo").isPresent();
  }

  /**
   * The server's secret keys (docs/PROVIDERS.md): {@code GADGET_SECRET_KEY} (and
   * {@code GADGET_OLD_SECRET_KEYS}) if set, else {@code secret.key} in the store's data directory
   * (for MongoDB, the {@code --data-dir} default), created owner-only on first start.
   */
  static SecretKeys secretKeys(Opened store, Args args, Console console) {
    Map<String, String> env = new HashMap<>();
    for (String name : List.of(SecretKeys.ENV_KEY, SecretKeys.ENV_OLD_KEYS)) {
      String value = console.env(name);
      if (value != null) {
        env.put(name, value);
      }
    }
    return secretKeys(store.directory() != null ? store.directory() : dataDir(args), env);
  }

  static SecretKeys secretKeys(Path dir, Map<String, String> env) {
    try {
      return SecretKeys.fromEnvironmentOr(dir, env);
    } catch (IOException e) {
      throw new CommandException("cannot read or create the secret key "
          + dir.resolve(SecretKeys.KEY_FILE) + " (" + e.getMessage() + ")", e);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** The embedded store's data directory the command line names. */
  static Path dataDir(Args args) {
    return Path.of(args.get("data-dir", DEFAULT_DATA_DIR));
  }

  /** Opens the store for a server: the embedded one, or MongoDB with {@code --mongo}. */
  static Opened open(Args args) {
    Optional<String> mongo = args.get("mongo");
    if (mongo.isPresent()) {
      if (args.get("data-dir").isPresent()) {
        throw new UsageException("--mongo and --data-dir do not go together");
      }
      if (args.get("store-cache").isPresent()) {
        throw new UsageException("--store-cache sizes the embedded store's cache: it does not "
            + "go with --mongo");
      }
      String database = args.get("database", MongoChatStore.Builder.DEFAULT_DATABASE);
      return new Opened(mongo(mongo.get(), database), "MongoDB " + redact(mongo.get())
          + " (database " + database + ")", null);
    }
    if (args.get("database").isPresent()) {
      throw new UsageException("--database names a MongoDB database: it goes with --mongo");
    }
    return embedded(dataDir(args), storeCache(args));
  }

  /** The embedded store's cache in bytes: {@code --store-cache} MiB, or the default. */
  static long storeCache(Args args) {
    Optional<String> v = args.get("store-cache");
    if (v.isEmpty()) {
      return JournaledChatStore.Builder.DEFAULT_CACHE_BYTES;
    }
    try {
      long mb = Long.parseLong(v.get().strip());
      if (mb >= 0 && mb <= 1 << 20) {
        return mb << 20;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new UsageException("--store-cache takes a number of megabytes, 0 (no cache) or more; "
        + "not '" + v.get() + "'");
  }

  /**
   * Opens the embedded store in {@code dir}: a {@link JournaledChatStore}, which syncs every
   * write to disk before it returns.
   *
   * @throws CommandException if it cannot be opened, or another process (a running server) has
   *     it open
   */
  static Opened embedded(Path dir) {
    return embedded(dir, JournaledChatStore.Builder.DEFAULT_CACHE_BYTES);
  }

  /** {@link #embedded(Path)} with a cache of finished turns of {@code cacheBytes}. */
  static Opened embedded(Path dir, long cacheBytes) {
    Path abs = dir.toAbsolutePath().normalize();
    try {
      return openEmbedded(abs, cacheBytes);
    } catch (StoreException e) {
      throw new CommandException("the data directory " + abs + " is in use by another Gadget "
          + "server or command (" + e.getMessage() + ")", e);
    }
  }

  /**
   * The embedded store in {@code dir}, or empty when another process (a running server) has it
   * open.
   *
   * @throws CommandException if it cannot be opened for any other reason
   */
  static Optional<Opened> embeddedIfFree(Path dir) {
    try {
      return Optional.of(openEmbedded(dir.toAbsolutePath().normalize(),
          JournaledChatStore.Builder.DEFAULT_CACHE_BYTES));
    } catch (StoreException e) {
      return Optional.empty();
    }
  }

  /** Throws StoreException only when the directory is in use. */
  private static Opened openEmbedded(Path abs, long cacheBytes) {
    refuseTheOldFormat(abs);
    try {
      return new Opened(JournaledChatStore.builder(abs).cacheBytes(cacheBytes).build(),
          "the embedded store in " + abs, abs);
    } catch (StoreException e) {
      if (e.reason() == StoreException.Reason.UNAVAILABLE) {
        throw e;
      }
      throw new CommandException(e.getMessage(), e);
    }
  }

  /**
   * Refuses a directory that holds only the store of earlier versions (mongo-java-server on an
   * H2 file), which this version cannot read, rather than starting an empty store beside it.
   */
  private static void refuseTheOldFormat(Path dir) {
    if (!Files.exists(dir.resolve(OLD_STORE_FILE))) {
      return;
    }
    try (Stream<Path> files = Files.list(dir)) {
      if (files.anyMatch(p -> p.getFileName().toString().endsWith(".jsonl"))) {
        return; // already holds a journaled store: the old file is a leftover
      }
    } catch (IOException e) {
      throw new CommandException("cannot read the data directory " + dir + ": " + e, e);
    }
    throw new CommandException("the data directory " + dir + " holds a store written by an "
        + "earlier Gadget (" + OLD_STORE_FILE + ", an embedded MongoDB-protocol store), which "
        + "this version does not read: it keeps its data in journal files, synced to disk on "
        + "every write. Start with another --data-dir (this one is left as it is), or use a "
        + "MongoDB with --mongo");
  }

  private static ChatStore mongo(String uri, String database) {
    try {
      return MongoChatStore.builder().connectionString(uri).database(database).build();
    } catch (StoreException | IllegalArgumentException e) {
      throw new CommandException("cannot use MongoDB at " + redact(uri) + ": " + e.getMessage(),
          e);
    }
  }

  /** A connection string without its password, for messages. */
  static String redact(String uri) {
    return uri.replaceAll("(?<=://)([^:@/]+):[^@/]*@", "$1:***@");
  }
}
