package dev.gadget.transport.ws;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.transport.ws.internal.ClientManager;
import dev.gadget.transport.ws.internal.ClientOptions;
import dev.gadget.transport.ws.internal.SocketCodec;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A {@link TransportClient} that speaks Engine.IO v4 and Socket.IO v5 over WebSocket, so it can
 * talk to a stock npm {@code socket.io} 4.x server as well as to a
 * {@link WebSocketTransportServer}.
 *
 * <pre>{@code
 * try (WebSocketTransportClient client = WebSocketTransportClient.builder()
 *     .uri(URI.create("http://127.0.0.1:3000"))
 *     .build()) {
 *   Connection drone = client.connect("/drone", () -> authJson(), new ClientListener() {...});
 *   drone.on("work", (args, ack) -> ...);
 *   drone.emit("ready", List.of());
 * }
 * }</pre>
 *
 * <p>Like Socket.IO's Manager, one client holds one Engine.IO connection and every namespace it
 * {@linkplain #connect connects} to shares it (one {@link Connection} per namespace; a namespace
 * can be connected once at a time). When that connection drops (the server went away, a ping
 * timeout, an invalid packet) the client reconnects with exponential backoff and jitter (1 s
 * doubling up to 5 s, ±50%, by default) and sends every namespace's CONNECT again, asking its
 * auth supplier anew. While disconnected, emits wait in a bounded buffer per connection (1000 by
 * default; beyond it {@code emit} drops with a WARN and {@code emitWithAck} fails at once); an
 * ack whose event already went out fails when the connection drops. A server that refuses a
 * CONNECT ({@code onConnectError} with a
 * {@link dev.gadget.core.transport.ConnectionRefusedException}) or disconnects a namespace
 * ({@code onDisconnect} with {@code "io server disconnect"}) ends that connection for good.
 *
 * <p><b>Threading.</b> All methods are thread-safe and never block for the network. Listener
 * callbacks and event handlers of one connection run one at a time, in order, on a pool thread;
 * ack futures complete on a pool thread too, so a handler may wait for an ack.
 */
public final class WebSocketTransportClient implements TransportClient {
  private final ClientManager manager;

  private WebSocketTransportClient(ClientOptions options) {
    this.manager = new ClientManager(options);
  }

  /** A builder; {@link Builder#uri} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Connects to {@code namespace}, opening the shared WebSocket if needed. Returns at once.
   *
   * @param namespace such as {@code "/"} or {@code "/drone"}
   * @param auth called before every CONNECT (the first and each reconnect); returns a JSON
   *     object, or {@code null} for no auth payload
   * @throws IllegalStateException if this client is closed or already has a connection to
   *     {@code namespace}
   */
  @Override
  public Connection connect(String namespace, Supplier<JsonNode> auth, ClientListener listener,
      Consumer<Connection> setup) {
    return manager.connect(namespace, auth, listener, setup);
  }

  /**
   * Disconnects every connection (each hears {@code "io client disconnect"}), closes the
   * WebSocket and stops the client's threads. Idempotent.
   */
  @Override
  public void close() {
    manager.close();
  }

  /** Configures a {@link WebSocketTransportClient}. Not thread-safe. */
  public static final class Builder {
    private URI uri;
    private java.util.List<URI> alternates = java.util.List.of();
    private String path = "/socket.io/";
    private boolean reconnection = true;
    private Duration reconnectionDelay = Duration.ofSeconds(1);
    private Duration reconnectionDelayMax = Duration.ofSeconds(5);
    private double randomizationFactor = 0.5;
    private int reconnectionAttempts = Integer.MAX_VALUE;
    private Duration connectTimeout = Duration.ofSeconds(20);
    private int maxBufferedEmits = 1000;
    private int maxPayload = 100_000_000;
    private int maxAttachments = SocketCodec.DEFAULT_MAX_ATTACHMENTS;

    private Builder() {}

    /**
     * The server: {@code http://host:port}, {@code https://...}, {@code ws://...} or
     * {@code wss://...}. Its path, if any, is ignored; see {@link #path}.
     */
    public Builder uri(URI uri) {
      Objects.requireNonNull(uri, "uri");
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
      if (!scheme.matches("https?|wss?") || uri.getHost() == null) {
        throw new IllegalArgumentException("expected http(s):// or ws(s)://host[:port], got " + uri);
      }
      this.uri = uri;
      return this;
    }

    /**
     * Several servers (the nodes of one cluster): the first is connected to first, and after
     * each drop the next one is tried, in turn. Each as {@link #uri}.
     */
    public Builder uris(java.util.List<URI> uris) {
      if (uris.isEmpty()) {
        throw new IllegalArgumentException("at least one server URI is needed");
      }
      for (URI u : uris) {
        uri(u);
      }
      this.uri = uris.get(0);
      this.alternates = java.util.List.copyOf(uris.subList(1, uris.size()));
      return this;
    }

    /** The server's Engine.IO path; {@code /socket.io/} by default. */
    public Builder path(String path) {
      this.path = WebSocketTransportServer.checkPath(path);
      return this;
    }

    /** Whether to reconnect after a drop; true by default. */
    public Builder reconnection(boolean reconnection) {
      this.reconnection = reconnection;
      return this;
    }

    /** The first reconnect delay, doubled per attempt; 1 s by default. */
    public Builder reconnectionDelay(Duration delay) {
      this.reconnectionDelay = WebSocketTransportServer.positive(delay, "reconnectionDelay");
      return this;
    }

    /** The longest reconnect delay; 5 s by default. */
    public Builder reconnectionDelayMax(Duration delayMax) {
      this.reconnectionDelayMax = WebSocketTransportServer.positive(delayMax, "reconnectionDelayMax");
      return this;
    }

    /** The jitter: each delay is spread by ±this fraction, in [0, 1]; 0.5 by default. */
    public Builder randomizationFactor(double factor) {
      if (!(factor >= 0 && factor <= 1)) {
        throw new IllegalArgumentException("randomizationFactor must be in [0, 1]: " + factor);
      }
      this.randomizationFactor = factor;
      return this;
    }

    /**
     * How many reconnect attempts in a row before giving up (each connection then gets
     * {@code onDisconnect(..., false)} or {@code onConnectError}); unlimited by default.
     */
    public Builder reconnectionAttempts(int attempts) {
      if (attempts < 0) {
        throw new IllegalArgumentException("reconnectionAttempts must not be negative: " + attempts);
      }
      this.reconnectionAttempts = attempts;
      return this;
    }

    /** How long the WebSocket and Engine.IO handshakes may take per attempt; 20 s by default. */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = WebSocketTransportServer.positive(timeout, "connectTimeout");
      return this;
    }

    /** How many emits one connection keeps while disconnected; 1000 by default. */
    public Builder maxBufferedEmits(int max) {
      if (max < 0) {
        throw new IllegalArgumentException("maxBufferedEmits must not be negative: " + max);
      }
      this.maxBufferedEmits = max;
      return this;
    }

    /**
     * The largest WebSocket message accepted from the server, in bytes; 100,000,000 by default.
     * (What the client sends is checked against the server's own maxPayload.)
     */
    public Builder maxPayload(int maxPayload) {
      if (maxPayload < 1) {
        throw new IllegalArgumentException("maxPayload must be positive: " + maxPayload);
      }
      this.maxPayload = maxPayload;
      return this;
    }

    /** The most binary attachments one incoming packet may carry; 10 by default. */
    public Builder maxAttachments(int maxAttachments) {
      if (maxAttachments < 1) {
        throw new IllegalArgumentException("maxAttachments must be positive: " + maxAttachments);
      }
      this.maxAttachments = maxAttachments;
      return this;
    }

    /** A new client; it connects on the first {@link #connect}. */
    public WebSocketTransportClient build() {
      if (uri == null) {
        throw new IllegalStateException("uri is required");
      }
      return new WebSocketTransportClient(new ClientOptions(webSocket(uri), reconnection,
          reconnectionDelay, reconnectionDelayMax, randomizationFactor, reconnectionAttempts,
          connectTimeout, maxBufferedEmits, maxPayload, maxAttachments,
          alternates.stream().map(this::webSocket).toList()));
    }

    private URI webSocket(URI uri) {
      String scheme = uri.getScheme().toLowerCase(java.util.Locale.ROOT);
      String wsScheme = scheme.equals("https") || scheme.equals("wss") ? "wss" : "ws";
      String host = uri.getHost().contains(":") && !uri.getHost().startsWith("[")
          ? "[" + uri.getHost() + "]" : uri.getHost();
      String port = uri.getPort() < 0 ? "" : ":" + uri.getPort();
      return URI.create(wsScheme + "://" + host + port + path + "?EIO=4&transport=websocket");
    }
  }
}
