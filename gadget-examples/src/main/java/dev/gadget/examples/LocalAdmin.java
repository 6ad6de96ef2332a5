package dev.gadget.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.User;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

/**
 * How {@code gadget user} reaches the embedded store while a server has it open (one process at
 * a time): the server writes {@code <data-dir>/server.json} ({@code {"url", "pid"}}) and an
 * admin secret, {@code <data-dir>/admin.secret}, readable by its owner only; the command posts
 * to the server's {@code /api/admin/} with that secret (see {@link AdminApi}). When no server
 * has the directory open, the command opens it itself.
 */
final class LocalAdmin {
  static final String SERVER_FILE = "server.json";
  static final String SECRET_FILE = "admin.secret";
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final ObjectMapper JSON = GadgetJson.mapper();

  private LocalAdmin() {}

  /** A new admin secret: 256 random bits, URL-safe base64. */
  static String newSecret() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The files a running server publishes in its data directory; closing removes them. */
  static final class Published implements AutoCloseable {
    private final Path dir;

    private Published(Path dir) {
      this.dir = dir;
    }

    @Override
    public void close() {
      try {
        Files.deleteIfExists(dir.resolve(SERVER_FILE));
        Files.deleteIfExists(dir.resolve(SECRET_FILE));
      } catch (IOException e) {
        // a stale file is harmless: the directory's lock decides who has it open
      }
    }
  }

  /** Writes the secret (owner only), then {@code server.json} naming {@code pageUrl}. */
  static Published publish(Path dir, URI pageUrl, String secret) {
    try {
      writeOwnerOnly(dir.resolve(SECRET_FILE), secret + "\n");
      writeOwnerOnly(dir.resolve(SERVER_FILE), JSON.writeValueAsString(Map.of(
          "url", pageUrl.toString(), "pid", ProcessHandle.current().pid())) + "\n");
    } catch (IOException e) {
      throw new CommandException("cannot write " + dir.resolve(SERVER_FILE) + ": " + e, e);
    }
    return new Published(dir);
  }

  /**
   * What a {@code user} command did.
   *
   * @param issued the user and its new tokens
   * @param where the store, for a person
   */
  record Done(Accounts.Issued issued, String where) {}

  /**
   * Creates a user ({@code add}) or issues new tokens for one: on MongoDB or the data directory
   * directly, or through the server that has the directory open.
   */
  static Done run(Args args, boolean add, String username) {
    if (!Stores.isMongo(args) && args.get("database").isPresent()) {
      throw new UsageException("--database names a MongoDB database: it goes with --mongo");
    }
    Optional<Stores.Opened> direct = Stores.isMongo(args)
        ? Optional.of(Stores.open(args))
        : Stores.embeddedIfFree(Stores.dataDir(args));
    if (direct.isPresent()) {
      try (Stores.Opened store = direct.get()) {
        if (store.directory() != null) {
          new Published(store.directory()).close(); // left by a server that was killed
        }
        return new Done(add ? Accounts.create(store.store(), username)
            : Accounts.newTokens(store.store(), username), store.description());
      }
    }
    return throughServer(Stores.dataDir(args).toAbsolutePath().normalize(), add, username);
  }

  private static Done throughServer(Path dir, boolean add, String username) {
    Path serverFile = dir.resolve(SERVER_FILE);
    URI url;
    String secret;
    try {
      url = URI.create(JSON.readTree(Files.readString(serverFile)).path("url").asText());
      secret = Files.readString(dir.resolve(SECRET_FILE), StandardCharsets.UTF_8).strip();
    } catch (IOException | IllegalArgumentException e) {
      throw new CommandException("the data directory " + dir + " is in use by another process, "
          + "which is not a Gadget server taking requests (" + serverFile.getFileName()
          + " and " + SECRET_FILE + " are missing or unreadable). Try again once it stops", e);
    }
    HttpResponse<String> response;
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      response = http.send(HttpRequest.newBuilder(url.resolve(add ? "api/admin/users"
              : "api/admin/tokens"))
          .timeout(Duration.ofSeconds(30))
          .header("Authorization", "Bearer " + secret)
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(
              JSON.writeValueAsString(Map.of("username", username))))
          .build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new CommandException("the Gadget server that has " + dir + " open does not answer "
          + "at " + url + " (" + e.getMessage() + "); try again in a moment", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommandException("interrupted", e);
    }
    JsonNode body = parse(response.body());
    String error = body.path("error").asText("the server answered " + response.statusCode());
    switch (response.statusCode()) {
      case 200:
        break;
      case 400:
        throw new UsageException(error);
      case 401:
        throw new CommandException("the server at " + url + " refused the admin secret in "
            + dir.resolve(SECRET_FILE) + " (" + error + ")");
      default:
        throw new CommandException(error);
    }
    try {
      User user = JSON.treeToValue(body.get("user"), User.class);
      return new Done(new Accounts.Issued(user, body.get("pageToken").asText(),
          body.get("droneToken").asText()), "the running server's store in " + dir);
    } catch (IOException | RuntimeException e) {
      throw new CommandException("the server at " + url + " gave an answer this command does "
          + "not understand", e);
    }
  }

  private static JsonNode parse(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return JSON.createObjectNode();
    }
  }

  /** Writes {@code text} to a new file readable by its owner only, replacing {@code file}. */
  private static void writeOwnerOnly(Path file, String text) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------")));
    } else {
      Files.createFile(tmp);
    }
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
