package dev.gadget.store.mongo;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MongoDB the tests run against: a real MongoDB when the environment variable
 * {@code MONGODB_URI} is set, else an in-process mongo-java-server (memory backend) on
 * 127.0.0.1 and a random port. Every test gets its own database named
 * {@code gadget_test_<run>_<n>}, dropped after it; every database this run named is dropped again
 * when the run ends. Register {@link Extension} on a test class so the server is closed at the end of
 * the run.
 */
final class TestMongo implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TestMongo.class);
  private static TestMongo instance;

  private final MongoServer server;
  private final String connectionString;
  private final MongoClient client;
  private final String run;
  private final AtomicInteger counter = new AtomicInteger();
  private final Set<String> issued = ConcurrentHashMap.newKeySet();

  private TestMongo() {
    String uri = System.getenv("MONGODB_URI");
    if (uri != null && !uri.isBlank()) {
      server = null;
      connectionString = uri;
      log.info("Tests run against the MongoDB in MONGODB_URI");
    } else {
      server = new MongoServer(new MemoryBackend());
      server.bind("127.0.0.1", 0);
      InetSocketAddress address = server.getLocalAddress();
      connectionString = "mongodb://127.0.0.1:" + address.getPort();
      log.info("Tests run against mongo-java-server on {}", connectionString);
    }
    client = MongoClients.create(connectionString);
    run = "gadget_test_" + Long.toString(new SecureRandom().nextLong() >>> 1, 36);
  }

  /** The shared instance, started on first use. */
  static synchronized TestMongo get() {
    if (instance == null) {
      instance = new TestMongo();
    }
    return instance;
  }

  /** A connection string for the server, for stores that create their own client. */
  String connectionString() {
    return connectionString;
  }

  /** A client for test set-up, inspection and clean-up. Do not close it. */
  MongoClient client() {
    return client;
  }

  /** A new database name, unique to this run. */
  String newDatabase() {
    String name = run + "_" + counter.incrementAndGet();
    issued.add(name);
    return name;
  }

  /** Drops a database this run made. */
  void drop(String database) {
    client.getDatabase(database).drop();
  }

  @Override
  public void close() {
    synchronized (TestMongo.class) {
      instance = null;
    }
    try {
      // Dropping a database that is already gone does nothing; no listDatabases privilege needed.
      issued.forEach(this::drop);
      log.info("Dropped the {} test database(s) of run {}", issued.size(), run);
    } finally {
      client.close();
      if (server != null) {
        server.shutdownNow();
      }
    }
  }

  /** Starts the shared server for a test class and closes it when the whole run ends. */
  static final class Extension implements BeforeAllCallback {
    private static final ExtensionContext.Namespace NAMESPACE =
        ExtensionContext.Namespace.create(TestMongo.class);

    @Override
    public void beforeAll(ExtensionContext context) {
      context.getRoot().getStore(NAMESPACE)
          .getOrComputeIfAbsent(TestMongo.class, k -> get(), TestMongo.class);
    }
  }
}
