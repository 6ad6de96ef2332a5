package dev.gadget.transport.ws.internal;

import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.TransportException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.NetworkChannel;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.drafts.Draft;
import org.java_websocket.enums.ReadyState;
import org.java_websocket.exceptions.InvalidDataException;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.framing.Framedata;
import org.java_websocket.handshake.ClientHandshake;
import org.java_websocket.handshake.ServerHandshakeBuilder;
import org.java_websocket.server.WebSocketServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Java-WebSocket server under {@code WebSocketTransportServer}: checks the handshake path and
 * query, and routes each WebSocket's frames to its {@link ServerSession}. Clients' frames are read
 * by {@link StrictDraft} (RFC 6455 strictly, messages over {@code maxPayload} refused with 1009,
 * permessage-deflate never negotiated); {@link Sockets} closes connections that complete no
 * handshake within {@code handshakeTimeout} and tells sessions how much waits unsent. Peers'
 * protocol errors are logged through {@link PeerLog}. Java-WebSocket's own lost-connection pings
 * are off (the Engine.IO heartbeat governs: one sweep over all sessions on the timer thread, not
 * a timer task per session), and accepted sockets have TCP_NODELAY. Frames that
 * sessions queue are watched by {@link WriteWatch} until they leave (a library race can strand
 * them).
 */
public final class ServerEndpoint extends WebSocketServer implements StrictDraft.Sink {
  private static final Logger log = LoggerFactory.getLogger(ServerEndpoint.class);
  /** Connections the kernel may hold before the server accepts them. */
  static final int LISTEN_BACKLOG = 1024;
  /** How long a refused handshake's answer has to go out before the connection is closed. */
  static final long REFUSED_GRACE_MILLIS = 500;

  private final ServerOptions options;
  private final ConnectionAcceptor acceptor;
  private final ExecutorService pool = Threads.handlerPool("gadget-ws-server");
  private final ScheduledThreadPoolExecutor timer = Threads.timer("gadget-ws-server");
  private final WriteWatch writeWatch = new WriteWatch("gadget-ws-server-writewatch");
  private final CompletableFuture<Void> started = new CompletableFuture<>();
  /** The open sessions by WebSocket (not the attachment alone: onClose may run on any thread). */
  private final Map<WebSocket, ServerSession> sessions = new ConcurrentHashMap<>();
  private final PeerLog peerLog = new PeerLog();
  /** Handlers that have thrown (bounded: only registered handlers can). */
  private final Set<String> failedHandlers = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final StrictDraft.Shared drafts;
  private final Sockets sockets;

  public ServerEndpoint(ServerOptions options, ConnectionAcceptor acceptor) {
    this(options, acceptor, new StrictDraft.Shared(options.maxPayload()));
  }

  private ServerEndpoint(ServerOptions options, ConnectionAcceptor acceptor,
      StrictDraft.Shared drafts) {
    super(new InetSocketAddress(options.host(), options.port()),
        List.<Draft>of(new StrictDraft(drafts)));
    this.options = options;
    this.acceptor = acceptor;
    this.drafts = drafts;
    this.sockets = new Sockets(options.handshakeTimeout(), timer, peerLog);
    drafts.sink = this;
    setWebSocketFactory(sockets);
    // Java's default of 50 pending connections makes a burst of clients wait for SYN retries.
    setMaxPendingConnections(LISTEN_BACKLOG);
    setTcpNoDelay(true);
    setReuseAddr(true);
    setConnectionLostTimeout(0);
    setDaemon(true);
    long tick = heartbeatTickMillis(options);
    timer.scheduleWithFixedDelay(this::heartbeats, tick, tick, TimeUnit.MILLISECONDS);
  }

  /**
   * How often the heartbeat sweep runs: a tenth of the shorter of ping interval and ping
   * timeout, between 5 ms and 1 s, so pings and ping timeouts are at most that late.
   */
  static long heartbeatTickMillis(ServerOptions options) {
    long shorter = Math.min(options.pingInterval().toMillis(), options.pingTimeout().toMillis());
    return Math.max(5, Math.min(1000, shorter / 10));
  }

  /** One sweep over all sessions: the pings that are due, the pongs that are late. */
  private void heartbeats() {
    long now = System.nanoTime();
    for (ServerSession session : sessions.values()) {
      try {
        session.heartbeat(now);
      } catch (RuntimeException e) {
        // A throw would end the sweep for every session.
        log.warn("Heartbeat of session {} failed", session.sid, e);
      }
    }
  }

  /** Binds and starts; throws {@link TransportException} if it cannot within {@code timeout}. */
  public void startAndAwait(Duration timeout) {
    start();
    try {
      started.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      shutdownPools();
      throw new TransportException("cannot listen on " + options.host() + ":" + options.port()
          + ": " + e.getCause().getMessage(), null, e.getCause());
    } catch (TimeoutException e) {
      shutdown();
      throw new TransportException("server did not start within " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      shutdown();
      throw new TransportException("interrupted while starting", null, e);
    }
  }

  ServerOptions options() {
    return options;
  }

  ConnectionAcceptor acceptor() {
    return acceptor;
  }

  ExecutorService pool() {
    return pool;
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  /** The open sessions' TCP_NODELAY flags, for tests. */
  public List<Boolean> sessionTcpNoDelay() {
    return sessions.values().stream().map(s -> s.tcpNoDelay).toList();
  }

  /** How many Engine.IO sessions are open. */
  public int sessionCount() {
    return sessions.size();
  }

  /** How many accepted TCP connections are open, handshake done or not (tests). */
  public int socketCount() {
    return sockets.openCount();
  }

  /** How many WebSocket frames clients have sent so far, refused ones included (tests). */
  public long framesRead() {
    return drafts.framesRead.sum();
  }

  /** The most bytes waiting in one connection's output queue right now (tests). */
  public long largestOutQueue() {
    long max = 0;
    for (WebSocket conn : getConnections()) {
      max = Math.max(max, Sockets.outQueueBytes(conn));
    }
    return max;
  }

  /** Drops every TCP connection without a close frame, as a network failure would (tests). */
  public void severAll() {
    for (WebSocket conn : getConnections()) {
      conn.closeConnection(CloseFrame.ABNORMAL_CLOSE, "severed");
    }
  }

  void sessionClosed(ServerSession session) {
    sessions.remove(session.ws, session);
  }

  PeerLog peerLog() {
    return peerLog;
  }

  WriteWatch writeWatch() {
    return writeWatch;
  }

  /** How many times a queued frame had to be re-armed past the library's lost write (tests). */
  public long framesRearmed() {
    return writeWatch.rescued();
  }

  /**
   * A handler threw: a bug that some peer's input may reach again and again, on any number of
   * connections. At WARN with the stack trace once per namespace and event, then at DEBUG.
   */
  void handlerFailed(String namespace, String event, RuntimeException e) {
    if (failedHandlers.add(namespace + " " + event)) {
      log.warn("Handler for event '{}' on {} threw; the connection goes on (later failures of"
          + " this handler are logged at DEBUG)", event, namespace, e);
    } else {
      log.debug("Handler for event '{}' on {} threw: {}", event, namespace, e.toString());
    }
  }

  @Override
  public void violation(WebSocketImpl conn, FrameReader.Violation v) {
    ServerSession session = conn.getAttachment();
    String what = v.closeCode() == CloseFrame.TOOBIG ? "transport error" : "parse error";
    peerLog.problem(Sockets.peer(conn), v.kind(), "closed session "
        + (session == null ? "(none)" : session.sid) + " with " + v.closeCode() + ": " + v.reason());
    if (session != null) {
      session.terminate(what, v.closeCode(), v.reason());
    } else {
      conn.close(v.closeCode(), v.reason());
      writeWatch.queued(conn);
    }
  }

  @Override
  public void queued(WebSocketImpl conn) {
    writeWatch.queued(conn);
  }

  @Override
  public ServerHandshakeBuilder onWebsocketHandshakeReceivedAsServer(
      WebSocket conn, Draft draft, ClientHandshake request) throws InvalidDataException {
    String descriptor = request.getResourceDescriptor();
    String problem = checkResource(descriptor, options.path());
    if (problem != null) {
      log.debug("Refused a WebSocket handshake for {}: {}", descriptor, problem);
      throw new InvalidDataException(CloseFrame.POLICY_VALIDATION, problem);
    }
    return super.onWebsocketHandshakeReceivedAsServer(conn, draft, request);
  }

  /** Null when {@code descriptor} is {@code <path>?EIO=4&transport=websocket}, else why not. */
  static String checkResource(String descriptor, String path) {
    if (descriptor == null) {
      return "no request path";
    }
    int q = descriptor.indexOf('?');
    String p = q < 0 ? descriptor : descriptor.substring(0, q);
    if (!stripSlash(p).equals(stripSlash(path))) {
      return "unknown path";
    }
    Map<String, String> query = new HashMap<>();
    if (q >= 0) {
      for (String pair : descriptor.substring(q + 1).split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          query.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
    }
    if (!"4".equals(query.get("EIO"))) {
      return "unsupported protocol version (EIO=4 required)";
    }
    if (!"websocket".equals(query.get("transport"))) {
      return "transport unknown (only websocket is supported)";
    }
    if (query.containsKey("sid")) {
      return "session id unknown (no polling sessions to upgrade)";
    }
    return null;
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  @Override
  public void onStart() {
    started.complete(null);
  }

  @Override
  public void onOpen(WebSocket conn, ClientHandshake handshake) {
    if (stopped.get()) {
      conn.close(CloseFrame.GOING_AWAY, "server shutting down");
      return;
    }
    Sockets.handshakeDone(conn);
    ServerSession session = new ServerSession(conn, this, tcpNoDelayOf(conn));
    conn.setAttachment(session);
    sessions.put(conn, session);
    if (!Sockets.isOpen(conn)) {
      // The peer went away while its handshake completed: onClose (on the selector thread) may
      // have come before the session existed, and the library may still list the connection.
      removeConnection(conn);
      session.transportClosed(CloseFrame.ABNORMAL_CLOSE);
      return;
    }
    session.open();
  }

  private static boolean tcpNoDelayOf(WebSocket conn) {
    NetworkChannel channel = Sockets.socketOf(conn);
    if (channel == null) {
      return false;
    }
    try {
      return channel.getOption(StandardSocketOptions.TCP_NODELAY);
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  @Override
  public void onMessage(WebSocket conn, String message) {
    ServerSession session = conn.getAttachment();
    if (session != null) {
      session.onText(message);
    }
  }

  @Override
  public void onMessage(WebSocket conn, ByteBuffer message) {
    ServerSession session = conn.getAttachment();
    if (session != null) {
      session.onBinary(message);
    }
  }

  @Override
  public void onClosing(WebSocket conn, int code, String reason, boolean remote) {
    if (conn.getReadyState() == ReadyState.NOT_YET_CONNECTED) {
      // A refused handshake: the library writes its 404 but, with no draft chosen, never closes
      // the connection itself. Give the answer a moment to go out, then close.
      try {
        timer.schedule(() -> conn.closeConnection(code, reason), REFUSED_GRACE_MILLIS,
            TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        conn.closeConnection(code, reason);
      }
    }
  }

  @Override
  public void onWebsocketPing(WebSocket conn, Framedata ping) {
    ServerSession session = conn.getAttachment();
    if (session != null) {
      session.pong(ping.getPayloadData());
    }
  }

  @Override
  public void onClose(WebSocket conn, int code, String reason, boolean remote) {
    // A session that ended itself has left the map but still waits for this.
    ServerSession session = sessions.getOrDefault(conn, conn.getAttachment());
    if (session != null) {
      session.transportClosed(code);
    }
  }

  @Override
  public void onError(WebSocket conn, Exception ex) {
    if (conn == null) {
      if (!started.completeExceptionally(ex)) {
        log.error("WebSocket server failed", ex);
      }
      return;
    }
    // Not a peer's doing (StrictDraft reports those): the library's own trouble, such as a
    // failed close. No stack trace: it would say nothing about Gadget.
    log.debug("WebSocket error on a connection from {}: {}", Sockets.peer(conn), ex.toString());
  }

  /** Closes every session ("server shutting down") and stops. Idempotent. */
  public void shutdown() {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    for (ServerSession session : List.copyOf(sessions.values())) {
      session.terminate("server shutting down", CloseFrame.GOING_AWAY);
    }
    try {
      stop(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sockets.closeAll();
    shutdownPools();
  }

  private void shutdownPools() {
    writeWatch.close();
    timer.shutdownNow();
    pool.shutdown();
    try {
      if (!pool.awaitTermination(5, TimeUnit.SECONDS)) {
        log.warn("Handlers still running 5 s after the server closed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
