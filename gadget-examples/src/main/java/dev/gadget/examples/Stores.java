package dev.gadget.examples;

import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.store.mongo.MongoChatStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Opens the store the command line names: the embedded default or {@code --mongo URI}. */
final class Stores {
  static final String DEFAULT_DATA_DIR = ".gadget-data";

  static final List<OptionSpec> OPTIONS = List.of(
      OptionSpec.value("data-dir", "DIR",
          "where the embedded store keeps its file (default " + DEFAULT_DATA_DIR + ")"),
      OptionSpec.value("mongo", "URI",
          "use this MongoDB instead of the embedded store, e.g. mongodb://127.0.0.1:27017"),
      OptionSpec.value("database", "NAME", "the MongoDB database (default gadget)"));

  private Stores() {}

  /**
   * A store and what to close with it.
   *
   * @param store the store
   * @param description where it is, for a person (never a password)
   * @param embedded the embedded server, when this is the embedded store
   */
  record Opened(ChatStore store, String description, EmbeddedMongo embedded)
      implements AutoCloseable {
    @Override
    public void close() {
      try {
        store.close();
      } finally {
        if (embedded != null) {
          embedded.close();
        }
      }
    }
  }

  /** Opens the store for a server: the embedded one, or MongoDB with {@code --mongo}. */
  static Opened open(Args args) {
    String database = args.get("database", MongoChatStore.Builder.DEFAULT_DATABASE);
    Optional<String> mongo = args.get("mongo");
    if (mongo.isPresent()) {
      if (args.get("data-dir").isPresent()) {
        throw new UsageException("--mongo and --data-dir do not go together");
      }
      return new Opened(mongo(mongo.get(), database), "MongoDB " + redact(mongo.get())
          + " (database " + database + ")", null);
    }
    return embedded(dataDir(args), database);
  }

  /**
   * Opens the store for a one-shot command: through the running server's embedded store when
   * one serves the data directory, else the file itself.
   */
  static Opened openShared(Args args) {
    if (args.get("mongo").isPresent()) {
      return open(args);
    }
    Path dir = dataDir(args);
    String database = args.get("database", MongoChatStore.Builder.DEFAULT_DATABASE);
    Optional<String> running = EmbeddedMongo.runningUri(dir);
    if (running.isPresent()) {
      ChatStore store = MongoChatStore.builder().connectionString(running.get())
          .database(database).serverSelectionTimeout(Duration.ofSeconds(2)).build();
      try {
        store.findUserByName("admin");
        return new Opened(store, "the running server's store in " + dir.toAbsolutePath(), null);
      } catch (StoreException e) {
        // a stale file from a server that died: open the file ourselves
        store.close();
      }
    }
    return embedded(dir, database);
  }

  /** The embedded store's directory: {@code --data-dir}, or the default. */
  static Path dataDir(Args args) {
    return Path.of(args.get("data-dir", DEFAULT_DATA_DIR));
  }

  static Opened embedded(Path dir, String database) {
    EmbeddedMongo embedded = EmbeddedMongo.start(dir);
    try {
      ChatStore store = MongoChatStore.builder().connectionString(embedded.connectionString())
          .database(database).build();
      return new Opened(store, "the embedded store in " + dir.toAbsolutePath().normalize(),
          embedded);
    } catch (RuntimeException e) {
      embedded.close();
      throw e;
    }
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
