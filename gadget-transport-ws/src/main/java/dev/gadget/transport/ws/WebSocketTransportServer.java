package dev.gadget.transport.ws;

import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.TransportException;
import dev.gadget.core.transport.TransportServer;
import dev.gadget.transport.ws.internal.ServerEndpoint;
import dev.gadget.transport.ws.internal.ServerOptions;
import dev.gadget.transport.ws.internal.SocketCodec;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A {@link TransportServer} that speaks Engine.IO v4 and Socket.IO v5 over WebSocket only, so
 * the stock {@code socket.io-client} (with {@code transports: ['websocket']}) can connect to it.
 *
 * <pre>{@code
 * WebSocketTransportServer server = WebSocketTransportServer.builder().port(0).build();
 * server.start(acceptor);
 * int port = server.port();   // the bound port
 * ...
 * server.close();
 * }</pre>
 *
 * <p>It listens on {@code ws://host:port<path>?EIO=4&transport=websocket} (path
 * {@code /socket.io/} by default) and refuses other paths, other protocol versions, polling and
 * upgrades from polling. Each connection gets an OPEN packet with its {@code sid},
 * {@code upgrades: []}, the ping interval and timeout and {@code maxPayload}; the server pings,
 * and ends a connection whose pong does not come within the ping timeout, that sends an invalid
 * frame or packet (close code 1002, or 1007 for text that is not UTF-8), that joins no
 * namespace within the connect timeout (1008), that sends a message larger than
 * {@code maxPayload} (1009, with the limit in the close reason), or that leaves more than
 * {@code maxQueuedBytes} unread (1008). A TCP connection that completes no WebSocket handshake
 * within the handshake timeout is closed. Client frames must be masked (RFC 6455).
 * permessage-deflate is never negotiated and TCP_NODELAY is on. Several namespaces share one
 * connection; each is a separate {@link dev.gadget.core.transport.Connection}.
 *
 * <p><b>Logging.</b> What a peer does wrong (an invalid frame or packet, an oversized message,
 * slow reading, no handshake) is logged at WARN the first time an address does that kind of
 * thing, then at DEBUG; never with a stack trace, never quoting what the peer sent.
 *
 * <p><b>Threading.</b> Network I/O runs on Java-WebSocket's selector and worker threads. The
 * acceptor's {@code authenticate} and {@code onConnect}, every handler and {@code onDisconnect}
 * run on a per-connection serial queue over a shared cached thread pool, so a slow handler
 * delays only its own connection. All methods of this class are thread-safe.
 */
public final class WebSocketTransportServer implements TransportServer {
  private final ServerOptions options;
  private ServerEndpoint endpoint;
  private int boundPort = -1;
  private boolean closed;

  private WebSocketTransportServer(ServerOptions options) {
    this.options = options;
  }

  /** A builder with the defaults: 127.0.0.1, port 0, Socket.IO's timings. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Binds and starts accepting connections; returns once the port is bound.
   *
   * @throws IllegalStateException if called twice or after {@link #close()}
   * @throws TransportException if the address cannot be bound
   */
  @Override
  public synchronized void start(ConnectionAcceptor acceptor) {
    Objects.requireNonNull(acceptor, "acceptor");
    if (endpoint != null || closed) {
      throw new IllegalStateException("start() may be called once, before close()");
    }
    ServerEndpoint e = new ServerEndpoint(options, acceptor);
    e.startAndAwait(Duration.ofSeconds(10));
    endpoint = e;
    boundPort = e.getPort();
  }

  /**
   * The bound port (useful after {@code port(0)}); still answers after {@link #close()}.
   *
   * @throws IllegalStateException before {@link #start}
   */
  public synchronized int port() {
    if (boundPort < 0) {
      throw new IllegalStateException("not started");
    }
    return boundPort;
  }

  /** The host this server binds to. */
  public String host() {
    return options.host();
  }

  /**
   * The base URI a client passes to {@link WebSocketTransportClient.Builder#uri}, such as
   * {@code http://127.0.0.1:40123}.
   *
   * @throws IllegalStateException before {@link #start}
   */
  public URI uri() {
    String host = options.host().contains(":") ? "[" + options.host() + "]" : options.host();
    return URI.create("http://" + host + ":" + port());
  }

  /** Closes every connection ({@code "server shutting down"}) and stops listening. Idempotent. */
  @Override
  public void close() {
    ServerEndpoint e;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      e = endpoint;
    }
    if (e != null) {
      e.shutdown();
    }
  }

  /** For tests in this package: the accepted sockets' TCP_NODELAY flags. */
  List<Boolean> sessionTcpNoDelay() {
    return endpoint.sessionTcpNoDelay();
  }

  /** For tests in this package: drops every TCP connection as a network failure would. */
  void severAll() {
    endpoint.severAll();
  }

  /** For tests and benchmarks in this package: frames the write watch had to re-arm. */
  long framesRearmed() {
    return endpoint.framesRearmed();
  }

  /** For tests in this package: how many Engine.IO connections are open. */
  int sessionCount() {
    return endpoint.sessionCount();
  }

  /** For tests in this package: how many accepted TCP connections are open. */
  int socketCount() {
    return endpoint.socketCount();
  }

  /** For tests in this package: how many WebSocket frames clients have sent. */
  long framesRead() {
    return endpoint.framesRead();
  }

  /** For tests in this package: the most bytes one connection's output queue holds now. */
  long largestOutQueue() {
    return endpoint.largestOutQueue();
  }

  /** Configures a {@link WebSocketTransportServer}. Not thread-safe. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port;
    private String path = "/socket.io/";
    private Duration pingInterval = Duration.ofSeconds(25);
    private Duration pingTimeout = Duration.ofSeconds(20);
    private int maxPayload = 1_000_000;
    private Duration connectTimeout = Duration.ofSeconds(45);
    private int maxAttachments = SocketCodec.DEFAULT_MAX_ATTACHMENTS;
    private Duration handshakeTimeout = Duration.ofSeconds(10);
    private long maxQueuedBytes = 10_000_000;
    private long maxUnhandledBytes = 10_000_000;

    private Builder() {}

    /** The address to bind; {@code 127.0.0.1} by default. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** The port; 0 (the default) picks a free one, see {@link #port()}. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port out of range: " + port);
      }
      this.port = port;
      return this;
    }

    /** The HTTP path clients connect to; {@code /socket.io/} by default, like Socket.IO's. */
    public Builder path(String path) {
      this.path = checkPath(path);
      return this;
    }

    /** How often the server pings; 25 s by default. */
    public Builder pingInterval(Duration pingInterval) {
      this.pingInterval = positive(pingInterval, "pingInterval");
      return this;
    }

    /** How long the server waits for a pong before closing; 20 s by default. */
    public Builder pingTimeout(Duration pingTimeout) {
      this.pingTimeout = positive(pingTimeout, "pingTimeout");
      return this;
    }

    /**
     * The largest WebSocket message accepted, in bytes (one frame, or the fragments of one
     * message together); a larger one closes the connection with 1009 and the reason
     * {@code "message too large: the limit is <n> bytes"}, refused from the frame's header
     * before it is buffered. Announced to clients in the OPEN packet. 1,000,000 by default.
     */
    public Builder maxPayload(int maxPayload) {
      if (maxPayload < 1) {
        throw new IllegalArgumentException("maxPayload must be positive: " + maxPayload);
      }
      this.maxPayload = maxPayload;
      return this;
    }

    /** How long a new connection may take to join its first namespace; 45 s by default. */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = positive(connectTimeout, "connectTimeout");
      return this;
    }

    /** The most binary attachments one packet may carry; 10 by default. */
    public Builder maxAttachments(int maxAttachments) {
      if (maxAttachments < 1) {
        throw new IllegalArgumentException("maxAttachments must be positive: " + maxAttachments);
      }
      this.maxAttachments = maxAttachments;
      return this;
    }

    /**
     * How long an accepted TCP connection may take to complete its WebSocket handshake (the
     * HTTP upgrade); then it is closed, so that connections that send nothing or half a request
     * do not hold file descriptors. 10 s by default.
     */
    public Builder handshakeTimeout(Duration handshakeTimeout) {
      this.handshakeTimeout = positive(handshakeTimeout, "handshakeTimeout");
      return this;
    }

    /**
     * The most bytes the server keeps for one connection that the peer has not read yet. A
     * message that would leave more waiting ends the connection instead (close code 1008,
     * reason {@code "too much unread data: the limit is <n> bytes"}, {@code onDisconnect}
     * reason {@code "transport error"}), so a peer that never reads cannot make the server
     * buffer without bound; other connections are not affected. A single message larger than
     * this is still sent when nothing else waits. 10,000,000 by default.
     */
    public Builder maxQueuedBytes(long maxQueuedBytes) {
      if (maxQueuedBytes < 1) {
        throw new IllegalArgumentException("maxQueuedBytes must be positive: " + maxQueuedBytes);
      }
      this.maxQueuedBytes = maxQueuedBytes;
      return this;
    }

    /**
     * The most bytes of one connection's requests that may wait for their handlers (the
     * connection's handlers run one at a time). A request that would leave more waiting ends the
     * connection instead (close code 1008, reason
     * {@code "too many requests waiting: the limit is <n> bytes"}, {@code onDisconnect} reason
     * {@code "transport error"}), so a peer that sends faster than its requests are handled
     * cannot make the server buffer without bound; other connections are not affected. A single
     * request larger than this still passes when nothing else waits. 10,000,000 by default.
     */
    public Builder maxUnhandledBytes(long maxUnhandledBytes) {
      if (maxUnhandledBytes < 1) {
        throw new IllegalArgumentException(
            "maxUnhandledBytes must be positive: " + maxUnhandledBytes);
      }
      this.maxUnhandledBytes = maxUnhandledBytes;
      return this;
    }

    /** A new, unstarted server. */
    public WebSocketTransportServer build() {
      return new WebSocketTransportServer(new ServerOptions(host, port, path, pingInterval,
          pingTimeout, maxPayload, connectTimeout, maxAttachments, handshakeTimeout,
          maxQueuedBytes, maxUnhandledBytes));
    }
  }

  static String checkPath(String path) {
    Objects.requireNonNull(path, "path");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with '/': " + path);
    }
    return path;
  }

  static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
    return d;
  }
}
