package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.ConnectionRefusedException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.java_websocket.WebSocket;
import org.java_websocket.framing.CloseFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Engine.IO connection on the server: the OPEN handshake, the heartbeat, the connect
 * timeout, and the Socket.IO sockets (one per namespace) multiplexed over it. Frames arrive on
 * one Java-WebSocket worker thread per connection, so the decoder needs no lock.
 */
final class ServerSession {
  private static final Logger log = LoggerFactory.getLogger(ServerSession.class);
  /** The largest close frame: what must still fit when a session ends. */
  private static final int CLOSE_FRAME_BYTES = 127;
  private static final int OPCODE_TEXT = 0x1;
  private static final int OPCODE_PONG = 0xA;
  /** The frame text being built by this thread ({@link #send}): one builder per thread. */
  private static final ThreadLocal<StringBuilder> TEXT =
      ThreadLocal.withInitial(() -> new StringBuilder(256));
  /** The most room a thread's {@link #TEXT} keeps after a large message. */
  private static final int MAX_KEPT_TEXT = 16 * 1024;

  final String sid = Sids.next();
  final WebSocket ws;
  private final ServerEndpoint endpoint;
  private final ServerOptions options;
  private final SocketCodec.Decoder decoder;
  private final Map<String, ServerSocket> sockets = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  /** Bytes of this peer's requests that wait for their handlers (at most maxUnhandledBytes). */
  private final AtomicLong inboundWaiting = new AtomicLong();
  /** When the next ping is due ({@link System#nanoTime}), while no pong is awaited. */
  private volatile long nextPingNanos;
  /** When the awaited pong must have come. */
  private volatile long pongDueNanos;
  private volatile boolean awaitingPong;
  private final SessionOutput output;
  private volatile boolean joined;
  private volatile ScheduledFuture<?> connectTimeout;
  private volatile ScheduledFuture<?> dropTimer;
  private volatile String closeReason;
  final boolean tcpNoDelay;

  ServerSession(WebSocket ws, ServerEndpoint endpoint, boolean tcpNoDelay) {
    this.ws = ws;
    this.endpoint = endpoint;
    this.options = endpoint.options();
    this.decoder = new SocketCodec.Decoder(options.maxAttachments());
    this.tcpNoDelay = tcpNoDelay;
    this.output = new SessionOutput(ws, endpoint, closed, options.maxQueuedBytes(),
        CLOSE_FRAME_BYTES);
  }

  void open() {
    OpenHandshake handshake = new OpenHandshake(sid, List.of(),
        options.pingInterval().toMillis(), options.pingTimeout().toMillis(), options.maxPayload());
    nextPingNanos = System.nanoTime() + options.pingInterval().toNanos();
    sendEngine(new EnginePacket(EnginePacket.Type.OPEN, handshake.toJson()));
    connectTimeout = schedule(() -> {
      if (!joined) {
        log.debug("Session {} joined no namespace within {}; closing", sid, options.connectTimeout());
        terminate("connect timeout", CloseFrame.POLICY_VALIDATION);
      }
    }, options.connectTimeout().toMillis());
  }

  boolean isOpen() {
    return !closed.get() && ws.isOpen();
  }

  String closeReason() {
    return closeReason;
  }

  // ---- heartbeat -------------------------------------------------------------------------

  /**
   * The heartbeat, from the endpoint's one sweep over all sessions (on the timer thread; see
   * {@link ServerEndpoint}): sends the ping that is due, or ends a session whose pong is late.
   * One sweep instead of a timer task per session keeps idle connections cheap.
   */
  void heartbeat(long nowNanos) {
    if (closed.get()) {
      return;
    }
    if (awaitingPong) {
      if (nowNanos - pongDueNanos >= 0) {
        terminate("ping timeout", CloseFrame.NORMAL);
      }
    } else if (nowNanos - nextPingNanos >= 0) {
      // Armed before the ping goes out: on loopback the pong can beat the next line.
      pongDueNanos = nowNanos + options.pingTimeout().toNanos();
      awaitingPong = true;
      sendEngine(EnginePacket.PING);
    }
  }

  /** A pong (on this session's worker thread): answers the latest ping at most once. */
  private void onPong() {
    if (awaitingPong) {
      nextPingNanos = System.nanoTime() + options.pingInterval().toNanos();
      awaitingPong = false;
    }
  }

  // ---- incoming --------------------------------------------------------------------------

  void onText(String frame) {
    if (closed.get()) {
      return;
    }
    try {
      EnginePacket packet = EnginePacket.decode(frame);
      switch (packet.type()) {
        case PONG:
          onPong();
          break;
        case PING:
          // Engine.IO v4: only the server pings (the stock server closes on this too).
          throw new ProtocolException("invalid heartbeat direction: PING from a client");
        case MESSAGE:
          SocketPacket decoded = decoder.text(packet.data());
          if (decoded != null) {
            onPacket(decoded, frame.length());
          }
          break;
        case CLOSE:
          terminate("transport close", CloseFrame.NORMAL);
          break;
        case NOOP:
          break;
        default:
          throw new ProtocolException("unexpected Engine.IO " + packet.type() + " packet from a client");
      }
    } catch (ProtocolException e) {
      protocolError(e);
    }
  }

  void onBinary(ByteBuffer buffer) {
    if (closed.get()) {
      return;
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    try {
      SocketPacket decoded = decoder.binary(bytes);
      if (decoded != null) {
        onPacket(decoded, bytes.length);
      }
    } catch (ProtocolException e) {
      protocolError(e);
    }
  }

  /** {@code size}: the bytes of the frame that completed the packet, for the inbound bound. */
  private void onPacket(SocketPacket packet, long size) throws ProtocolException {
    String ns = packet.namespace();
    log.trace("Session {} received {}", sid, packet);
    switch (packet.type()) {
      case CONNECT:
        onConnect(packet);
        break;
      case DISCONNECT: {
        ServerSocket socket = sockets.remove(ns);
        if (socket != null) {
          socket.closed("client namespace disconnect");
        }
        break;
      }
      case EVENT: {
        ServerSocket socket = sockets.get(ns);
        if (socket == null) {
          log.debug("Session {}: event for {}, which it has not joined; ignored", sid, ns);
        } else if (admit(size)) {
          socket.onEvent(packet, () -> inboundWaiting.addAndGet(-size));
        }
        break;
      }
      case ACK: {
        ServerSocket socket = sockets.get(ns);
        if (socket != null) {
          socket.onAck(packet);
        }
        break;
      }
      default:
        throw new ProtocolException("unexpected Socket.IO " + packet.type() + " packet from a client");
    }
  }

  private void onConnect(SocketPacket packet) {
    String ns = packet.namespace();
    ConnectionAcceptor acceptor = endpoint.acceptor();
    ServerSocket socket = new ServerSocket(ns, this, acceptor, endpoint.pool(), endpoint.timer());
    if (sockets.putIfAbsent(ns, socket) != null) {
      log.debug("Session {}: second CONNECT to {} ignored", sid, ns);
      return;
    }
    JsonNode auth = packet.data() == null ? NullNode.getInstance() : packet.data();
    socket.serial.execute(() -> {
      if (closed.get()) {
        socket.abandon();
        return;
      }
      Object principal;
      try {
        principal = acceptor.authenticate(ns, auth);
      } catch (ConnectionRefusedException e) {
        refuse(socket, e.getMessage(), e.data());
        return;
      } catch (RuntimeException e) {
        log.warn("ConnectionAcceptor.authenticate threw for namespace {}; refusing", ns, e);
        refuse(socket, "Internal server error", null);
        return;
      }
      if (!socket.accept(Sids.next(), principal)) {
        return;
      }
      joined = true;
      cancel(connectTimeout);
      ObjectNode reply = JsonNodeFactory.instance.objectNode().put("sid", socket.id());
      send(new SocketPacket(SocketPacket.Type.CONNECT, ns, null, reply));
      try {
        acceptor.onConnect(socket, principal);
      } catch (RuntimeException e) {
        log.warn("ConnectionAcceptor.onConnect threw for namespace {}; the connection goes on", ns, e);
      }
    });
  }

  private void refuse(ServerSocket socket, String message, JsonNode data) {
    socket.abandon();
    sockets.remove(socket.namespace(), socket);
    ObjectNode error = JsonNodeFactory.instance.objectNode();
    error.put("message", message == null ? "Connection refused" : message);
    if (data != null && !data.isNull()) {
      error.set("data", data);
    }
    send(new SocketPacket(SocketPacket.Type.CONNECT_ERROR, socket.namespace(), null, error));
  }

  void handlerFailed(String namespace, String event, RuntimeException e) {
    endpoint.handlerFailed(namespace, event, e);
  }

  void remove(ServerSocket socket) {
    sockets.remove(socket.namespace(), socket);
  }

  private void protocolError(ProtocolException e) {
    endpoint.peerLog().problem(Sockets.peer(ws), PeerLog.Kind.INVALID_PACKET,
        "closed session " + sid + ": " + e.getMessage());
    terminate("parse error", CloseFrame.PROTOCOL_ERROR);
  }

  // ---- outgoing --------------------------------------------------------------------------

  /** Sends a Socket.IO packet (and its attachments, back to back). False when closed. */
  boolean send(SocketPacket packet) {
    // the Engine.IO message type first: the frame's text is built once, then encoded once
    StringBuilder text = TEXT.get();
    text.setLength(0);
    SocketCodec.Encoded encoded;
    try {
      encoded = SocketCodec.encode(packet, text.append(EnginePacket.Type.MESSAGE.code()));
    } finally {
      if (text.capacity() > MAX_KEPT_TEXT) {
        TEXT.remove(); // a large message's room is not kept by the thread
      }
    }
    byte[] bytes = encoded.text().getBytes(StandardCharsets.UTF_8);
    if (encoded.attachments().isEmpty()) {
      return write(List.of(bytes), OPCODE_TEXT);
    }
    List<byte[]> payloads = new ArrayList<>(1 + encoded.attachments().size());
    payloads.add(bytes);
    payloads.addAll(encoded.attachments());
    return write(payloads, OPCODE_TEXT);
  }

  private void sendEngine(EnginePacket packet) {
    if (!write(List.of(packet.encode().getBytes(StandardCharsets.UTF_8)), OPCODE_TEXT)) {
      log.debug("Session {}: {} not sent, socket closed", sid, packet.type());
    }
  }

  /** Answers a WebSocket ping (on this session's worker thread). */
  void pong(ByteBuffer payload) {
    byte[] bytes = new byte[payload.remaining()];
    payload.get(bytes);
    write(List.of(bytes), OPCODE_PONG);
  }

  /**
   * Sends {@code payloads} as frames ({@link SessionOutput}), unless that would leave more than
   * {@code maxQueuedBytes} waiting for this peer to read: then the session ends instead. False
   * when not sent.
   */
  private boolean write(List<byte[]> payloads, int opcode) {
    long outcome = output.write(payloads, opcode);
    if (outcome == SessionOutput.SENT) {
      return true;
    }
    if (outcome != SessionOutput.CLOSED) {
      long bytes = 0;
      for (byte[] p : payloads) {
        bytes += Sockets.frameBytes(p.length);
      }
      endpoint.peerLog().problem(Sockets.peer(ws), PeerLog.Kind.SLOW_READER, "closed session "
          + sid + ": " + outcome + " bytes wait unread and " + bytes
          + " more would pass the limit of " + options.maxQueuedBytes());
      terminate("transport error", CloseFrame.POLICY_VALIDATION,
          "too much unread data: the limit is " + options.maxQueuedBytes() + " bytes");
    }
    return false;
  }

  /**
   * Counts {@code size} bytes of requests waiting for this peer's handlers, unless that would
   * pass {@code maxUnhandledBytes} (a single request larger than that still passes when nothing
   * else waits): then the session ends, so a peer that sends faster than its requests are
   * handled cannot make the server buffer without bound. False when not admitted.
   */
  private boolean admit(long size) {
    long waiting = inboundWaiting.addAndGet(size);
    if (waiting == size || waiting <= options.maxUnhandledBytes()) {
      return true;
    }
    inboundWaiting.addAndGet(-size);
    endpoint.peerLog().problem(Sockets.peer(ws), PeerLog.Kind.FLOOD, "closed session " + sid
        + ": " + (waiting - size) + " bytes of requests wait to be handled and " + size
        + " more would pass the limit of " + options.maxUnhandledBytes());
    terminate("transport error", CloseFrame.POLICY_VALIDATION,
        "too many requests waiting: the limit is " + options.maxUnhandledBytes() + " bytes");
    return false;
  }

  // ---- closing ---------------------------------------------------------------------------

  /** Ends the session: every socket hears {@code reason}, then the WebSocket closes. */
  void terminate(String reason, int code) {
    terminate(reason, code, reason);
  }

  /**
   * Ends the session: every socket hears {@code reason}; the WebSocket closes with {@code code}
   * and {@code closeText} (cut to "closed" over 120 bytes).
   */
  void terminate(String reason, int code, String closeText) {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closeReason = reason;
    cancel(connectTimeout);
    for (ServerSocket socket : sockets.values()) {
      socket.closed(reason);
    }
    sockets.clear();
    endpoint.sessionClosed(this);
    output.flushHeld(null); // what was sent before the close goes before the close frame
    if (!ws.isClosed()) {
      byte[] utf8 = closeText.getBytes(StandardCharsets.UTF_8);
      ws.close(code, utf8.length <= 120 ? closeText : "closed");
      // queued from this thread, the close frame could wait for a write nobody flagged (the
      // library's race, WriteWatch): then the peer saw the drop below and never the close
      endpoint.writeWatch().queued(ws);
      // A dead peer never answers the close frame: drop the TCP connection after a grace period.
      dropTimer = scheduleAnyway(() -> {
        if (!ws.isClosed()) {
          ws.closeConnection(CloseFrame.ABNORMAL_CLOSE, reason);
        }
      }, 2000);
      if (ws.isClosed()) {
        cancel(dropTimer); // closed meanwhile
      }
    }
  }

  /** The WebSocket closed underneath us. */
  void transportClosed(int code) {
    log.trace("Session {}: WebSocket closed with {}", sid, code);
    terminate(code == CloseFrame.TOOBIG ? "transport error" : "transport close", CloseFrame.NORMAL);
    cancel(dropTimer); // closed: the session need not wait for its timer to be let go
  }

  /**
   * Schedules one of the session's timers; one that the session closed under (another thread
   * may end it meanwhile) is cancelled at once, so no timer holds a closed session.
   */
  private ScheduledFuture<?> schedule(Runnable task, long millis) {
    ScheduledFuture<?> f = scheduleAnyway(task, millis);
    if (closed.get()) {
      cancel(f);
    }
    return f;
  }

  private ScheduledFuture<?> scheduleAnyway(Runnable task, long millis) {
    try {
      return endpoint.timer().schedule(task, millis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      return null;
    }
  }

  private static void cancel(ScheduledFuture<?> f) {
    if (f != null) {
      f.cancel(false);
    }
  }
}
