package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient.ClientListener;
import dev.gadget.core.transport.TransportException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.java_websocket.exceptions.WebsocketNotConnectedException;
import org.java_websocket.framing.CloseFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's Engine.IO connection, shared by its namespaces (Socket.IO's Manager): opens the
 * WebSocket, answers pings, watches for a silent server (ping interval + ping timeout), and
 * reconnects with exponential backoff and jitter while at least one namespace wants to be
 * connected, sending each namespace's CONNECT again with a fresh auth payload.
 */
public final class ClientManager {
  private static final Logger log = LoggerFactory.getLogger(ClientManager.class);

  private enum State { IDLE, OPENING, OPEN, WAITING, CLOSED }

  private final ClientOptions options;
  private final ExecutorService pool = Threads.handlerPool("gadget-ws-client");
  private final ScheduledThreadPoolExecutor timer = Threads.timer("gadget-ws-client");
  private final Object lock = new Object();
  private final Map<String, ClientSocket> sockets = new LinkedHashMap<>();
  private final AtomicBoolean protocolErrorLogged = new AtomicBoolean();
  private State state = State.IDLE;
  private volatile EngineClient engine;
  private volatile OpenHandshake handshake;
  private int attempts;
  private ScheduledFuture<?> reconnectTask;
  /** How many times the connection dropped: picks the server of the next attempt. */
  private int drops;
  private ScheduledFuture<?> openTimeout;
  private ScheduledFuture<?> pingWatchdog;

  public ClientManager(ClientOptions options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  /** Adds a namespace and opens the Engine.IO connection if it is not open yet. */
  public Connection connect(String namespace, Supplier<JsonNode> auth, ClientListener listener,
      Consumer<Connection> setup) {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(auth, "auth");
    Objects.requireNonNull(listener, "listener");
    if (!namespace.startsWith("/") || namespace.contains(",")) {
      throw new IllegalArgumentException("namespace must start with '/' and hold no ',': " + namespace);
    }
    ClientSocket socket = new ClientSocket(namespace, auth, listener, this, pool, timer,
        options.maxBufferedEmits());
    setup.accept(socket); // its handlers, before anything is sent
    EngineClient open = null;
    synchronized (lock) {
      if (state == State.CLOSED) {
        throw new IllegalStateException("the client is closed");
      }
      if (sockets.containsKey(namespace)) {
        throw new IllegalStateException("already connected to " + namespace
            + "; disconnect() that connection first");
      }
      sockets.put(namespace, socket);
      if (state == State.OPEN) {
        open = engine;
      } else if (state == State.IDLE) {
        openEngine();
      }
    }
    if (open != null) {
      EngineClient e = open;
      runOnPool(() -> socket.sendConnect(e));
    }
    return socket;
  }

  private void openEngine() {
    state = State.OPENING;
    URI target = options.uri(drops);
    EngineClient e = new EngineClient(target, this, options);
    engine = e;
    openTimeout = schedule(() -> dropped(e, "connect timeout", CloseFrame.NORMAL),
        options.connectTimeout().toMillis());
    log.debug("Connecting to {}", target);
    e.connect();
  }

  // ---- from the engine's read thread -----------------------------------------------------

  void onText(EngineClient e, String frame) {
    if (e != engine) {
      return;
    }
    try {
      EnginePacket packet = EnginePacket.decode(frame);
      switch (packet.type()) {
        case OPEN:
          onOpen(e, OpenHandshake.parse(packet.data()));
          break;
        case PING:
          send(e, EnginePacket.PONG);
          synchronized (lock) {
            resetWatchdog(e);
          }
          break;
        case CLOSE:
          dropped(e, "transport close", CloseFrame.NORMAL);
          break;
        case MESSAGE:
          SocketPacket decoded = e.decoder.text(packet.data());
          if (decoded != null) {
            onPacket(e, decoded);
          }
          break;
        default:
          break; // PONG, NOOP, UPGRADE: nothing to do over WebSocket
      }
    } catch (ProtocolException ex) {
      protocolError(e, ex);
    }
  }

  void onBinary(EngineClient e, ByteBuffer buffer) {
    if (e != engine) {
      return;
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    try {
      SocketPacket decoded = e.decoder.binary(bytes);
      if (decoded != null) {
        onPacket(e, decoded);
      }
    } catch (ProtocolException ex) {
      protocolError(e, ex);
    }
  }

  void onEngineClosed(EngineClient e, int code, String reason) {
    String why;
    if (code == CloseFrame.NEVER_CONNECTED) {
      Exception error = e.lastError;
      why = "connect error" + (error == null ? "" : ": " + error.getMessage());
    } else {
      why = code == CloseFrame.TOOBIG ? "transport error" : "transport close";
    }
    dropped(e, why, CloseFrame.NORMAL);
  }

  void onEngineError(EngineClient e, Exception ex) {
    e.lastError = ex;
    log.debug("WebSocket error talking to {}: {}", options.uri(), ex.toString());
  }

  private void protocolError(EngineClient e, ProtocolException ex) {
    if (protocolErrorLogged.compareAndSet(false, true)) {
      log.warn("Invalid packet from {}: {}; reconnecting (later ones are logged at DEBUG)",
          options.uri(), ex.getMessage());
    } else {
      log.debug("Invalid packet from {}: {}", options.uri(), ex.getMessage());
    }
    dropped(e, "parse error", CloseFrame.PROTOCOL_ERROR);
  }

  private void onOpen(EngineClient e, OpenHandshake h) {
    List<ClientSocket> toConnect;
    synchronized (lock) {
      if (e != engine || state != State.OPENING) {
        return;
      }
      handshake = h;
      state = State.OPEN;
      attempts = 0;
      cancel(openTimeout);
      resetWatchdog(e);
      toConnect = List.copyOf(sockets.values());
    }
    log.debug("Engine.IO session {} open to {}", h.sid(), options.uri());
    for (ClientSocket socket : toConnect) {
      runOnPool(() -> socket.sendConnect(e));
    }
  }

  private void resetWatchdog(EngineClient e) {
    OpenHandshake h = handshake;
    if (h == null || e != engine) {
      return;
    }
    cancel(pingWatchdog);
    pingWatchdog = schedule(() -> dropped(e, "ping timeout", CloseFrame.NORMAL),
        h.pingInterval() + h.pingTimeout());
  }

  private void onPacket(EngineClient e, SocketPacket packet) throws ProtocolException {
    ClientSocket socket;
    synchronized (lock) {
      socket = sockets.get(packet.namespace());
    }
    if (socket == null) {
      log.debug("Packet {} for a namespace this client has not joined; ignored", packet);
      return;
    }
    switch (packet.type()) {
      case CONNECT: {
        JsonNode sid = packet.data() == null ? null : packet.data().get("sid");
        if (sid == null || !sid.isTextual()) {
          throw new ProtocolException("CONNECT reply without a sid");
        }
        socket.onConnected(sid.asText());
        break;
      }
      case CONNECT_ERROR:
        socket.onRefused(packet.data());
        break;
      case DISCONNECT:
        socket.onServerDisconnect();
        remove(socket);
        break;
      case EVENT:
        socket.onEvent(packet);
        break;
      case ACK:
        socket.onAck(packet);
        break;
      default:
        throw new ProtocolException("unexpected " + packet.type() + " from the server");
    }
  }

  // ---- dropping and reconnecting ---------------------------------------------------------

  private void dropped(EngineClient e, String reason, int code) {
    List<ClientSocket> affected;
    boolean willReconnect = false;
    synchronized (lock) {
      if (e != engine) {
        return;
      }
      engine = null;
      handshake = null;
      cancel(openTimeout);
      cancel(pingWatchdog);
      affected = List.copyOf(sockets.values());
      drops++; // the next attempt goes to the next server, when there are several
      if (state == State.CLOSED) {
        affected = List.of();
      } else if (affected.isEmpty()) {
        state = State.IDLE;
      } else if (options.reconnection() && attempts < options.reconnectionAttempts()) {
        willReconnect = true;
        state = State.WAITING;
        long delay = options.backoffMillis(attempts++, ThreadLocalRandom.current().nextDouble());
        log.debug("Connection to {} dropped ({}); reconnect attempt {} in {} ms",
            options.uri(), reason, attempts, delay);
        reconnectTask = schedule(this::reconnect, delay);
      } else {
        log.debug("Connection to {} dropped ({}); not reconnecting", options.uri(), reason);
        state = State.IDLE;
        sockets.clear();
      }
    }
    closeQuietly(e, code, reason);
    for (ClientSocket socket : affected) {
      socket.onDropped(reason, willReconnect);
    }
  }

  private void reconnect() {
    synchronized (lock) {
      if (state != State.WAITING) {
        return;
      }
      if (sockets.isEmpty()) {
        state = State.IDLE;
        return;
      }
      openEngine();
    }
  }

  /** A namespace is gone for good; the last one closes the Engine.IO connection. */
  void remove(ClientSocket socket) {
    EngineClient toClose = null;
    synchronized (lock) {
      sockets.remove(socket.namespace(), socket);
      if (!sockets.isEmpty() || state == State.CLOSED || state == State.IDLE) {
        return;
      }
      cancel(reconnectTask);
      cancel(openTimeout);
      cancel(pingWatchdog);
      toClose = engine;
      engine = null;
      handshake = null;
      state = State.IDLE;
    }
    if (toClose != null) {
      closeQuietly(toClose, CloseFrame.NORMAL, "client close");
    }
  }

  // ---- sending ---------------------------------------------------------------------------

  /**
   * Sends a Socket.IO packet on {@code expected} (or on the current engine when null), text and
   * attachments back to back. False when that engine is not open.
   *
   * @throws TransportException if the packet exceeds the server's maxPayload
   */
  boolean send(EngineClient expected, SocketPacket packet) {
    EngineClient e = engine;
    OpenHandshake h = handshake;
    if (e == null || h == null || (expected != null && expected != e)) {
      return false;
    }
    SocketCodec.Encoded encoded = SocketCodec.encode(packet);
    String text = EnginePacket.message(encoded.text()).encode();
    long max = h.maxPayload();
    if (max > 0) {
      long size = text.length() * 3L <= max ? 0 : text.getBytes(StandardCharsets.UTF_8).length;
      for (byte[] a : encoded.attachments()) {
        size = Math.max(size, a.length);
      }
      if (size > max) {
        throw new TransportException("a message of " + size + " bytes exceeds the server's"
            + " maxPayload of " + max + " bytes");
      }
    }
    synchronized (e.sendLock) {
      try {
        e.send(text);
        for (byte[] attachment : encoded.attachments()) {
          e.send(attachment);
        }
        return true;
      } catch (WebsocketNotConnectedException ex) {
        return false;
      }
    }
  }

  private void send(EngineClient e, EnginePacket packet) {
    synchronized (e.sendLock) {
      try {
        e.send(packet.encode());
      } catch (WebsocketNotConnectedException ex) {
        log.debug("{} not sent: not connected", packet.type());
      }
    }
  }

  // ---- closing ---------------------------------------------------------------------------

  /** Disconnects every namespace and closes the connection for good. Idempotent. */
  public void close() {
    List<ClientSocket> all;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      all = List.copyOf(sockets.values());
    }
    for (ClientSocket socket : all) {
      socket.disconnect();
    }
    EngineClient e;
    synchronized (lock) {
      state = State.CLOSED;
      cancel(reconnectTask);
      cancel(openTimeout);
      cancel(pingWatchdog);
      sockets.clear();
      e = engine;
      engine = null;
      handshake = null;
    }
    if (e != null) {
      closeQuietly(e, CloseFrame.NORMAL, "client close");
    }
    timer.shutdownNow();
    pool.shutdown();
    try {
      pool.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(EngineClient e, int code, String reason) {
    try {
      e.close(code, reason);
    } catch (RuntimeException ex) {
      log.debug("Closing a WebSocket failed", ex);
    }
    // A dead peer never answers the close frame: drop the TCP connection after a grace period.
    CompletableFuture.runAsync(() -> {
      if (!e.isClosed()) {
        e.closeConnection(CloseFrame.ABNORMAL_CLOSE, reason);
      }
    }, CompletableFuture.delayedExecutor(2, TimeUnit.SECONDS));
  }

  private ScheduledFuture<?> schedule(Runnable task, long millis) {
    try {
      return timer.schedule(task, millis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  private void runOnPool(Runnable task) {
    try {
      pool.execute(task);
    } catch (RejectedExecutionException e) {
      log.debug("Client closed; task dropped");
    }
  }

  private static void cancel(ScheduledFuture<?> f) {
    if (f != null) {
      f.cancel(false);
    }
  }
}
