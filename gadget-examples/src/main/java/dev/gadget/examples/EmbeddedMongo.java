package dev.gadget.examples;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's default durable store: an in-process MongoDB-protocol server (mongo-java-server)
 * keeping its data in one H2 MVStore file, {@code <dataDir>/gadget.mv}, and listening on
 * 127.0.0.1 and a free port, which it writes to {@code <dataDir>/mongo.uri} while it runs so that
 * {@code gadget user} can reach it. The file is locked while open: one server per data directory.
 */
final class EmbeddedMongo implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EmbeddedMongo.class);
  static final String DATA_FILE = "gadget.mv";
  static final String URI_FILE = "mongo.uri";

  private final Path dataDir;
  private final MongoServer server;
  private final String connectionString;

  private EmbeddedMongo(Path dataDir, MongoServer server, String connectionString) {
    this.dataDir = dataDir;
    this.server = server;
    this.connectionString = connectionString;
  }

  /**
   * Opens (or creates) the data directory's store and starts serving it on 127.0.0.1.
   *
   * @throws CommandException if the directory cannot be made or another process has it open
   */
  static EmbeddedMongo start(Path dataDir) {
    Path dir = dataDir.toAbsolutePath().normalize();
    try {
      Files.createDirectories(dir);
      // Prompts, tool results and file contents live here: for this user's eyes only.
      ownerOnly(dir, "rwx------");
    } catch (IOException e) {
      throw new CommandException("cannot create the data directory " + dir + ": " + e, e);
    }
    H2Backend backend;
    try {
      backend = new H2Backend(dir.resolve(DATA_FILE).toString());
    } catch (RuntimeException e) {
      String m = String.valueOf(e.getMessage());
      if (m.contains("locked")) {
        throw new CommandException("the data directory " + dir + " is in use by another Gadget "
            + "server (its store file is locked)", e);
      }
      throw new CommandException("cannot open the store in " + dir + ": " + m, e);
    }
    try {
      ownerOnly(dir.resolve(DATA_FILE), "rw-------");
    } catch (IOException e) {
      log.warn("cannot restrict {} to its owner: {}", dir.resolve(DATA_FILE), e.getMessage());
    }
    MongoServer server = new MongoServer(backend);
    InetSocketAddress address;
    try {
      server.bind("127.0.0.1", 0);
      address = server.getLocalAddress();
    } catch (RuntimeException e) {
      server.shutdownNow();
      throw new CommandException("cannot start the embedded store: " + e.getMessage(), e);
    }
    String uri = "mongodb://127.0.0.1:" + address.getPort();
    try {
      Files.writeString(dir.resolve(URI_FILE), uri + "\n", StandardCharsets.UTF_8);
      ownerOnly(dir.resolve(URI_FILE), "rw-------");
    } catch (IOException e) {
      server.shutdownNow();
      throw new CommandException("cannot write " + dir.resolve(URI_FILE) + ": " + e, e);
    }
    log.debug("embedded store {} on {}", dir.resolve(DATA_FILE), uri);
    return new EmbeddedMongo(dir, server, uri);
  }

  /** Restricts {@code path} to its owner where the file system has POSIX permissions. */
  private static void ownerOnly(Path path, String permissions) throws IOException {
    if (!path.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return;
    }
    java.util.Set<java.nio.file.attribute.PosixFilePermission> perms =
        java.nio.file.attribute.PosixFilePermissions.fromString(permissions);
    if (Files.exists(path)) {
      Files.setPosixFilePermissions(path, perms);
    }
  }

  /**
   * The connection string a running server wrote into {@code dataDir}, if any (it may be stale
   * when that server died without cleaning up).
   */
  static Optional<String> runningUri(Path dataDir) {
    Path f = dataDir.toAbsolutePath().normalize().resolve(URI_FILE);
    if (!Files.isRegularFile(f)) {
      return Optional.empty();
    }
    try {
      String uri = Files.readString(f, StandardCharsets.UTF_8).trim();
      return uri.startsWith("mongodb://127.0.0.1:") ? Optional.of(uri) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where the MongoDB driver connects: {@code mongodb://127.0.0.1:<port>}. */
  String connectionString() {
    return connectionString;
  }

  /** Stops serving, writes everything to the file and closes it. */
  @Override
  public void close() {
    try {
      Files.deleteIfExists(dataDir.resolve(URI_FILE));
    } catch (IOException e) {
      log.debug("could not remove {}: {}", URI_FILE, e.toString());
    }
    server.shutdownNow();
  }
}
