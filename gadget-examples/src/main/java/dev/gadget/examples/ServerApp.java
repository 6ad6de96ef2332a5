package dev.gadget.examples;

import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.server.GadgetServer;
import dev.gadget.core.server.SecretKeys;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.transport.TransportException;
import dev.gadget.micrometer.GadgetMetrics;
import dev.gadget.transport.ws.WebSocketTransportServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A running Gadget server as the jar runs it: the {@link GadgetServer} on the Socket.IO
 * WebSocket transport and the {@link WebServer} with the page and the REST API, both on
 * 127.0.0.1 behind one {@link SharedPort} (the only address that binds the given host,
 * 127.0.0.1 unless told otherwise), so one port serves the page, the API, Socket.IO and drones. With an {@link Builder#adminDirectory admin
 * directory} (the embedded store's), it also serves {@link AdminApi} and publishes its address
 * and admin secret there for {@code gadget user} ({@link LocalAdmin}); with
 * {@link Builder#metrics}, its meters on {@code GET /metrics} ({@link MetricsEndpoint}).
 * Thread-safe; close it once.
 */
final class ServerApp implements AutoCloseable {
  private final ChatStore store;
  private final WebSocketTransportServer transport;
  private final GadgetServer server;
  private final WebServer web;
  private final SharedPort front;
  private final String host;
  private final LocalAdmin.Published published;
  private final MetricsEndpoint metrics;

  private static final String LOOPBACK = "127.0.0.1";
  private static final String SOCKET_PATH = "/socket.io/";

  private ServerApp(Builder b) {
    this.store = Objects.requireNonNull(b.store, "store");
    this.host = b.host;
    Objects.requireNonNull(b.provider, "provider");
    // Socket.IO is reached through the shared port; a port of its own only when asked for.
    int socketPort = Math.max(b.socketPort, 0);
    String socketHost = b.socketPort >= 0 ? b.host : LOOPBACK;
    this.transport = WebSocketTransportServer.builder().host(socketHost).port(socketPort).build();
    this.metrics = b.metrics ? new MetricsEndpoint(b.metricsNode) : null;
    GadgetServer.Builder gadget = GadgetServer.builder().store(store).transport(transport)
        .provider(b.provider);
    if (b.secretKeys != null) {
      gadget.secretKeys(b.secretKeys);
    }
    if (metrics != null) {
      gadget.listener(metrics.metrics().serverListener());
    }
    this.server = b.serverTweaks.apply(gadget).build();
    try {
      server.start();
    } catch (TransportException e) {
      server.close();
      throw new CommandException("cannot listen on " + socketHost + ":" + socketPort + " for "
          + "the Socket.IO transport (" + e.getMessage() + "); choose another --socket-port", e);
    }
    SharedPort front;
    try {
      front = new SharedPort(b.host, b.port, this::route);
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    this.front = front;
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("socketPort", front.port()); // the page's own port: one port serves both
    config.put("socketPath", SOCKET_PATH);
    config.put("llm", Map.of("sdk", b.provider.sdk(), "model", b.provider.modelId()));
    config.put("scripted", LlmClients.SCRIPTED.equals(b.provider.sdk()));
    String secret = b.adminDirectory == null ? null : LocalAdmin.newSecret();
    WebServer w;
    try {
      w = new WebServer(LOOPBACK, 0, store, config, b.contentSecurityPolicy,
          secret == null ? null : new AdminApi(store, secret));
    } catch (RuntimeException e) {
      front.close();
      server.close();
      throw e;
    }
    this.web = w;
    if (metrics != null) {
      w.route(MetricsEndpoint.PATH, metrics::handle);
    }
    try {
      this.published = secret == null ? null
          : LocalAdmin.publish(b.adminDirectory, pageUrl(), secret);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  static Builder builder() {
    return new Builder();
  }

  /** The page's address, such as {@code http://127.0.0.1:7700/}. */
  URI pageUrl() {
    return URI.create("http://" + hostForUrl() + ":" + front.port() + "/");
  }

  /** Where a connection to the shared port goes: Socket.IO, else the page (admin API locally). */
  private InetSocketAddress route(String path, InetAddress client) {
    if (path.startsWith(SOCKET_PATH)) {
      return new InetSocketAddress(transportAddress(), transport.port());
    }
    WebServer w = web;
    if (w == null) {
      return new InetSocketAddress(LOOPBACK, 9); // not started yet: refused, answered 502
    }
    return new InetSocketAddress(LOOPBACK,
        AdminApi.isThisMachine(client) ? w.port() : w.outsidePort());
  }

  private String transportAddress() {
    String h = transport.uri().getHost();
    return h.startsWith("[") ? h.substring(1, h.length() - 1) : h;
  }

  /** Where drones connect: {@code http://127.0.0.1:<socket port>}. */
  URI socketUri() {
    return transport.uri();
  }

  /** The meters {@code GET /metrics} serves, or {@code null} without {@link Builder#metrics}. */
  GadgetMetrics metrics() {
    return metrics == null ? null : metrics.metrics();
  }

  int httpPort() {
    return front.port();
  }

  int socketPort() {
    return transport.port();
  }

  ChatStore store() {
    return store;
  }

  private String hostForUrl() {
    String h = host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
    return h.contains(":") ? "[" + h + "]" : h;
  }

  /**
   * Removes the published admin files, stops the HTTP server and the Gadget server. The store
   * stays open (its owner closes it).
   */
  @Override
  public void close() {
    try {
      if (published != null) {
        published.close();
      }
      front.close();
      web.close();
    } finally {
      server.close();
    }
  }

  /** Configures a {@link ServerApp}. */
  static final class Builder {
    private ChatStore store;
    private ProviderConfig provider;
    private String host = "127.0.0.1";
    private int port = 7700;
    private int socketPort = -1;
    private boolean contentSecurityPolicy = true;
    private Path adminDirectory;
    private UnaryOperator<GadgetServer.Builder> serverTweaks = b -> b;
    private boolean metrics;
    private String metricsNode;
    private SecretKeys secretKeys;

    /** The keys that seal users' provider API keys (none: users cannot store a key). */
    Builder secretKeys(SecretKeys keys) {
      this.secretKeys = keys;
      return this;
    }

    Builder store(ChatStore store) {
      this.store = store;
      return this;
    }

    Builder provider(ProviderConfig provider) {
      this.provider = provider;
      return this;
    }

    Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** The port of the page, the REST API and Socket.IO (7700; 0: any free port). */
    Builder port(int port) {
      this.port = port;
      return this;
    }

    /**
     * A port of its own for Socket.IO on the same host, besides the shared one (default: none,
     * -1; 0: any free port). The page and drones reach Socket.IO on the HTTP port anyway.
     */
    Builder socketPort(int socketPort) {
      this.socketPort = socketPort;
      return this;
    }

    /** Whether the page is served with a Content-Security-Policy (default yes). */
    Builder contentSecurityPolicy(boolean on) {
      this.contentSecurityPolicy = on;
      return this;
    }

    /**
     * The embedded store's data directory, where the server publishes its address and admin
     * secret for {@code gadget user} ({@code null}, the default: no admin API).
     */
    Builder adminDirectory(Path dataDir) {
      this.adminDirectory = dataDir;
      return this;
    }

    /** Whether to serve Gadget's meters in Prometheus's format on {@code GET /metrics} (no). */
    Builder metrics(boolean on) {
      this.metrics = on;
      return this;
    }

    /** The cluster node's id, a {@code node} tag on every meter; {@code null} alone (none). */
    Builder metricsNode(String node) {
      this.metricsNode = node;
      return this;
    }

    /** Changes the Gadget server's settings (timeouts) before it is built. */
    Builder serverTweaks(UnaryOperator<GadgetServer.Builder> tweaks) {
      this.serverTweaks = Objects.requireNonNull(tweaks, "tweaks");
      return this;
    }

    /** Starts the server. */
    ServerApp start() {
      return new ServerApp(this);
    }
  }
}
