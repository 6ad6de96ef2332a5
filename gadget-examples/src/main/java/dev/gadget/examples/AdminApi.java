package dev.gadget.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's admin API, for {@code gadget user} on the same machine while the server has the
 * embedded store open (see {@link LocalAdmin}):
 *
 * <pre>
 * POST /api/admin/users   {"username"}   {"user", "pageToken", "droneToken"}; 400, 409
 * POST /api/admin/tokens  {"username"}   {"user", "pageToken", "droneToken"}; 404
 * </pre>
 *
 * Only for callers on this machine (anyone else gets 404) with {@code Authorization: Bearer
 * <admin secret>} (401 otherwise), the secret the server wrote to its data directory for its
 * owner only. Neither the secret nor the tokens are ever logged.
 */
final class AdminApi {
  private static final Logger log = LoggerFactory.getLogger(AdminApi.class);
  private static final int MAX_BODY = 4096;

  private final ChatStore store;
  private final byte[] secret;

  AdminApi(ChatStore store, String secret) {
    this.store = store;
    this.secret = secret.getBytes(StandardCharsets.UTF_8);
  }

  void handle(HttpExchange ex) throws IOException {
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    String path = ex.getRequestURI().getRawPath();
    boolean add = path.equals("/api/admin/users");
    if (!isThisMachine(ex.getRemoteAddress().getAddress())
        || !(add || path.equals("/api/admin/tokens"))) {
      WebServer.json(ex, 404, Map.of("error", "no such API: " + path));
      return;
    }
    if (!ex.getRequestMethod().equals("POST")) {
      ex.getResponseHeaders().set("Allow", "POST");
      WebServer.json(ex, 405, Map.of("error", "only POST is supported here"));
      return;
    }
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    byte[] given = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
        ? auth.substring(7).strip().getBytes(StandardCharsets.UTF_8)
        : new byte[0];
    if (!MessageDigest.isEqual(given, secret)) {
      WebServer.json(ex, 401, Map.of("error", "wrong or missing admin secret"));
      return;
    }
    String username = username(ex);
    if (username == null) {
      return;
    }
    Accounts.Issued issued;
    try {
      issued = add ? Accounts.create(store, username) : Accounts.newTokens(store, username);
    } catch (UsageException e) {
      WebServer.json(ex, 400, Map.of("error", e.getMessage()));
      return;
    } catch (CommandException e) {
      WebServer.json(ex, add ? 409 : 404, Map.of("error", e.getMessage()));
      return;
    } catch (StoreException e) {
      WebServer.json(ex, 503, Map.of("error", "the server cannot reach its store: "
          + e.getMessage()));
      return;
    }
    log.info("{} the user '{}' ('gadget user' on this machine)",
        add ? "Created" : "Issued new tokens for", issued.user().username());
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("user", issued.user());
    body.put("pageToken", issued.pageToken());
    body.put("droneToken", issued.droneToken());
    WebServer.json(ex, 200, body);
  }

  /** The request's {@code username}, or {@code null} after answering 400 or 413. */
  private static String username(HttpExchange ex) throws IOException {
    byte[] bytes;
    try (InputStream in = ex.getRequestBody()) {
      bytes = in.readNBytes(MAX_BODY + 1);
    }
    if (bytes.length > MAX_BODY) {
      WebServer.json(ex, 413, Map.of("error", "the request is larger than " + MAX_BODY
          + " bytes"));
      return null;
    }
    JsonNode name;
    try {
      name = GadgetJson.mapper().readTree(bytes).path("username");
    } catch (IOException e) {
      name = null;
    }
    if (name == null || !name.isTextual()) {
      WebServer.json(ex, 400, Map.of("error", "expected {\"username\": \"NAME\"}"));
      return null;
    }
    return name.asText();
  }

  /** Whether {@code address} is one of this machine's own (loopback or an interface's). */
  static boolean isThisMachine(InetAddress address) {
    if (address.isLoopbackAddress()) {
      return true;
    }
    try {
      return NetworkInterface.getByInetAddress(address) != null;
    } catch (SocketException e) {
      return false;
    }
  }
}
