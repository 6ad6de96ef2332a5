package dev.gadget.examples;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.StoredToken;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.User;
import dev.gadget.core.protocol.ProviderEvents;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.store.Tokens;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's HTTP side, on the JDK's {@link HttpServer}: the web page (static files from the
 * jar's {@code web/}) and a small read-only REST API.
 *
 * <pre>
 * GET /api/health                  {"status":"ok"} or 503 {"status":"unavailable","error"}
 * GET /api/config                  {"socketPort","socketPath","llm":{"sdk","model"},"scripted"}
 * GET /api/me                      {"user": User}                      (bearer user token)
 * GET /api/sessions[?projectId=]   {"sessions": [ChatSession]}         (bearer user token)
 * GET /api/sessions/{id}/turns     {"turns": [ChatTurn]}               (bearer user token)
 * POST /api/admin/users, /tokens   see {@link AdminApi}          (this machine, admin secret)
 * </pre>
 *
 * Errors are JSON {@code {"error": "..."}} with 400, 401, 404, 405 or 503. A user only ever sees
 * their own sessions.
 */
final class WebServer implements AutoCloseable {
  static {
    // The JDK server waits for a request's headers forever by default: a few half-open
    // connections would hold every worker. Bound reading a request and writing a response.
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", "10");
    }
    if (System.getProperty("sun.net.httpserver.maxRspTime") == null) {
      System.setProperty("sun.net.httpserver.maxRspTime", "60");
    }
  }

  private static final Logger log = LoggerFactory.getLogger(WebServer.class);
  private static final Pattern TURNS = Pattern.compile("/api/sessions/([0-9a-f]{24})/turns");
  private static final Pattern STATIC_PATH = Pattern.compile("/[A-Za-z0-9_./-]*");
  private static final Map<String, String> TYPES = Map.of(
      "html", "text/html; charset=utf-8",
      "js", "text/javascript; charset=utf-8",
      "css", "text/css; charset=utf-8",
      "svg", "image/svg+xml",
      "png", "image/png",
      "ico", "image/x-icon");

  private final HttpServer http;
  /** The same without the admin API, for clients from other machines; {@code http} if none. */
  private final HttpServer outside;
  private final ExecutorService executor;
  private final ChatStore store;
  private final Tokens tokens;
  private final Map<String, Object> config;
  private final boolean csp;

  /**
   * Binds {@code host:port} (0: any free port) and starts serving.
   *
   * @param admin the admin API, or {@code null} for none
   * @throws CommandException if the address cannot be bound
   */
  WebServer(String host, int port, ChatStore store, Map<String, Object> config, boolean csp,
      AdminApi admin) {
    this.store = store;
    this.tokens = new Tokens(store);
    this.config = Map.copyOf(config);
    this.csp = csp;
    try {
      this.http = HttpServer.create(new InetSocketAddress(host, port), 64);
    } catch (BindException e) {
      throw CommandException.cannotListen(host, port, e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    AtomicInteger n = new AtomicInteger();
    this.executor = Executors.newFixedThreadPool(16, r -> {
      Thread t = new Thread(r, "gadget-http-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    http.setExecutor(executor);
    http.createContext("/", this::handle);
    if (admin != null) {
      http.createContext("/api/admin/", ex -> guarded(ex, admin::handle));
      try {
        this.outside = HttpServer.create(new InetSocketAddress(host, 0), 64);
      } catch (IOException e) {
        http.stop(0);
        throw new UncheckedIOException(e);
      }
      outside.setExecutor(executor);
      outside.createContext("/", this::handle);
      outside.start();
    } else {
      this.outside = http;
    }
    http.start();
  }

  /** Serves {@code path} and everything under it with {@code handler}. */
  void route(String path, Handler handler) {
    http.createContext(path, ex -> guarded(ex, handler));
    if (outside != http) {
      outside.createContext(path, ex -> guarded(ex, handler));
    }
  }

  /** The bound port. */
  int port() {
    return http.getAddress().getPort();
  }

  /**
   * The port of the same server without the admin API: where {@link SharedPort} sends clients
   * from other machines (behind it, every client's address is this machine's).
   */
  int outsidePort() {
    return outside.getAddress().getPort();
  }

  @Override
  public void close() {
    if (outside != http) {
      outside.stop(0);
    }
    http.stop(0);
    executor.shutdownNow();
  }

  private void handle(HttpExchange ex) {
    guarded(ex, e -> {
      String path = e.getRequestURI().getRawPath();
      if (path.equals("/api") || path.startsWith("/api/")) {
        api(e, path);
      } else {
        serveStatic(e, path);
      }
    });
  }

  /** One exchange's handler, which may throw. */
  interface Handler {
    void handle(HttpExchange ex) throws IOException;
  }

  private static void guarded(HttpExchange ex, Handler handler) {
    try (ex) {
      handler.handle(ex);
    } catch (IOException e) {
      log.debug("HTTP exchange failed: {}", e.toString());
    } catch (RuntimeException e) {
      log.warn("HTTP handler failed on {}", ex.getRequestURI().getRawPath(), e);
    }
  }

  // ------------------------------------------------------------------ API

  private void api(HttpExchange ex, String path) throws IOException {
    Headers h = ex.getResponseHeaders();
    h.set("Cache-Control", "no-store");
    h.set("X-Content-Type-Options", "nosniff");
    if (!ex.getRequestMethod().equals("GET")) {
      h.set("Allow", "GET");
      json(ex, 405, Map.of("error", "only GET is supported here"));
      return;
    }
    try {
      if (path.equals("/api/health")) {
        health(ex);
        return;
      }
      if (path.equals("/api/config")) {
        json(ex, 200, config);
        return;
      }
      Optional<StoredToken> who = authenticate(ex);
      if (who.isEmpty()) {
        return;
      }
      String userId = who.get().userId();
      Matcher turns = TURNS.matcher(path);
      if (path.equals("/api/me")) {
        Optional<User> user = store.findUser(userId);
        if (user.isEmpty()) {
          json(ex, 401, Map.of("error", "this token's user no longer exists"));
        } else {
          json(ex, 200, Map.of("user", user.get()));
        }
      } else if (path.equals("/api/providers")) {
        json(ex, 200, Map.of("providers", store.providers().listProviders(userId).stream()
            .map(ProviderEvents.ProviderView::of).toList()));
      } else if (path.equals("/api/usage")) {
        json(ex, 200, ProviderEvents.UsageReply.of(userId, store.providers().listUsage(userId)));
      } else if (path.equals("/api/sessions")) {
        String projectId = query(ex.getRequestURI()).get("projectId");
        json(ex, 200, Map.of("sessions", store.listSessions(userId, projectId)));
      } else if (turns.matches()) {
        Optional<ChatSession> session = store.findSession(turns.group(1))
            .filter(s -> s.userId().equals(userId));
        if (session.isEmpty()) {
          json(ex, 404, Map.of("error", "chat session not found"));
        } else {
          json(ex, 200, Map.of("turns", store.listTurns(session.get().id())));
        }
      } else {
        json(ex, 404, Map.of("error", "no such API: " + path));
      }
    } catch (StoreException e) {
      json(ex, 503, Map.of("error", "the server cannot reach its store: " + e.getMessage()));
    }
  }

  private void health(HttpExchange ex) throws IOException {
    try {
      store.findUser("000000000000000000000000");
      json(ex, 200, Map.of("status", "ok"));
    } catch (StoreException e) {
      // Unauthenticated: say what is wrong, not where the database is.
      log.warn("health check: the store is unavailable: {}", e.getMessage());
      json(ex, 503, Map.of("status", "unavailable", "error", "the server cannot reach its store"));
    }
  }

  /** The caller's user token, or empty after answering 401. */
  private Optional<StoredToken> authenticate(HttpExchange ex) throws IOException {
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    String token = null;
    if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
      token = auth.substring(7).strip();
    }
    if (token == null || token.isEmpty()) {
      ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
      json(ex, 401, Map.of("error", "missing token: send Authorization: Bearer <user token>"));
      return Optional.empty();
    }
    Optional<StoredToken> t = tokens.authenticate(token, TokenKind.USER);
    if (t.isEmpty()) {
      ex.getResponseHeaders().set("WWW-Authenticate", "Bearer error=\"invalid_token\"");
      boolean drone = tokens.authenticate(token, TokenKind.DRONE).isPresent();
      json(ex, 401, Map.of("error", drone
          ? "this is a drone token: it is for 'java -jar gadget.jar drone'; sign in to the page "
              + "with your page token"
          : "invalid token"));
    }
    return t;
  }

  static Map<String, String> query(URI uri) {
    Map<String, String> out = new LinkedHashMap<>();
    String q = uri.getRawQuery();
    if (q == null || q.isEmpty()) {
      return out;
    }
    for (String pair : q.split("&")) {
      int eq = pair.indexOf('=');
      String k = eq < 0 ? pair : pair.substring(0, eq);
      String v = eq < 0 ? "" : pair.substring(eq + 1);
      out.putIfAbsent(URLDecoder.decode(k, StandardCharsets.UTF_8),
          URLDecoder.decode(v, StandardCharsets.UTF_8));
    }
    return out;
  }

  static void json(HttpExchange ex, int status, Object body) throws IOException {
    byte[] bytes;
    try {
      bytes = GadgetJson.mapper().writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IOException(e);
    }
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    send(ex, status, bytes);
  }

  static void send(HttpExchange ex, int status, byte[] bytes) throws IOException {
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : bytes.length == 0 ? -1 : bytes.length);
    if (!head && bytes.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  // ------------------------------------------------------------------ static files

  private void serveStatic(HttpExchange ex, String path) throws IOException {
    Headers h = ex.getResponseHeaders();
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "no-referrer");
    String method = ex.getRequestMethod();
    if (!method.equals("GET") && !method.equals("HEAD")) {
      h.set("Allow", "GET, HEAD");
      text(ex, 405, "method not allowed");
      return;
    }
    if (path.equals("/")) {
      path = "/index.html";
    }
    int dot = path.lastIndexOf('.');
    String type = dot < 0 ? null : TYPES.get(path.substring(dot + 1));
    if (!STATIC_PATH.matcher(path).matches() || path.contains("..") || path.contains("//")
        || type == null) {
      text(ex, 404, "not found");
      return;
    }
    byte[] bytes;
    try (InputStream in = WebServer.class.getResourceAsStream("/web" + path)) {
      if (in == null) {
        text(ex, 404, "not found");
        return;
      }
      bytes = in.readAllBytes();
    }
    h.set("Content-Type", type);
    h.set("Cache-Control", "no-cache");
    if (type.startsWith("text/html")) {
      h.set("X-Frame-Options", "DENY");
      if (csp) {
        // Defence in depth behind DOMPurify: no inline script, no remote images (an LLM's
        // Markdown could otherwise send data out through an image URL), WebSocket to any port
        // (the Socket.IO transport listens on its own port).
        h.set("Content-Security-Policy", "default-src 'self'; script-src 'self'; "
            + "style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
      }
    }
    send(ex, 200, bytes);
  }

  static void text(HttpExchange ex, int status, String body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    send(ex, status, body.getBytes(StandardCharsets.UTF_8));
  }
}
