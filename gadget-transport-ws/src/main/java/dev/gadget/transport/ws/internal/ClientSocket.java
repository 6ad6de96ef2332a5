package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.transport.ConnectionRefusedException;
import dev.gadget.core.transport.TransportClient.ClientListener;
import dev.gadget.core.transport.TransportException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's side of one namespace. It outlives reconnects of its {@link ClientManager}: emits
 * made while it is not connected wait in a bounded buffer and go out, in order, once the server
 * accepts the next CONNECT. Listener callbacks and handlers share the serial executor.
 */
final class ClientSocket extends SocketBase {
  private static final Logger log = LoggerFactory.getLogger(ClientSocket.class);

  enum State { CONNECTING, CONNECTED, CLOSED }

  private record Buffered(SocketPacket packet, PendingAck ack) {}

  private final ClientManager manager;
  private final Supplier<JsonNode> auth;
  private final ClientListener listener;
  private final int maxBuffered;
  private final Object lock = new Object();
  private final ArrayDeque<Buffered> buffer = new ArrayDeque<>();
  private final AtomicBoolean bufferFullLogged = new AtomicBoolean();
  private volatile State state = State.CONNECTING;

  ClientSocket(String namespace, Supplier<JsonNode> auth, ClientListener listener,
      ClientManager manager, Executor pool, ScheduledExecutorService timer, int maxBuffered) {
    super(namespace, pool, timer);
    this.auth = auth;
    this.listener = listener;
    this.manager = manager;
    this.maxBuffered = maxBuffered;
  }

  /** Sends CONNECT on {@code engine}, asking the auth supplier again. Runs on the pool. */
  void sendConnect(EngineClient engine) {
    if (state != State.CONNECTING) {
      return;
    }
    JsonNode payload;
    try {
      payload = auth.get();
    } catch (RuntimeException e) {
      log.warn("The auth supplier for {} threw; giving up on this connection", namespace, e);
      fail(new TransportException("auth supplier failed: " + e.getClass().getName(), null, e));
      return;
    }
    if (payload != null && !payload.isNull() && !payload.isObject()) {
      fail(new TransportException("the auth payload must be a JSON object, not "
          + payload.getNodeType()));
      return;
    }
    boolean none = payload == null || payload.isNull();
    manager.send(engine, new SocketPacket(SocketPacket.Type.CONNECT, namespace, null,
        none ? null : payload));
  }

  /** The server accepted the CONNECT: flush the buffer, then tell the listener. */
  void onConnected(String sid) {
    synchronized (lock) {
      if (state != State.CONNECTING) {
        return;
      }
      id = sid;
      state = State.CONNECTED;
      Iterator<Buffered> it = buffer.iterator();
      while (it.hasNext()) {
        Buffered b = it.next();
        if (!trySend(b.packet, b.ack)) {
          break; // the engine dropped meanwhile; the rest waits for the next connect
        }
        it.remove();
      }
    }
    callback("ClientListener.onConnect", () -> listener.onConnect(this));
  }

  /** CONNECT_ERROR: refused for good. */
  void onRefused(JsonNode data) {
    String message;
    JsonNode errorData = null;
    if (data != null && data.isTextual()) {
      message = data.asText();
    } else {
      message = data == null ? "connection refused" : data.path("message").asText("connection refused");
      errorData = data == null ? null : data.get("data");
    }
    fail(new ConnectionRefusedException(message, errorData));
  }

  /** The server sent DISCONNECT: closed for good, no reconnect. */
  void onServerDisconnect() {
    if (closeForGood("the server disconnected " + namespace)) {
      callback("ClientListener.onDisconnect",
          () -> listener.onDisconnect(this, "io server disconnect", false));
    }
  }

  /** The Engine.IO connection dropped. */
  void onDropped(String reason, boolean willReconnect) {
    boolean wasConnected;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      wasConnected = state == State.CONNECTED;
      if (willReconnect) {
        state = State.CONNECTING;
      }
    }
    if (willReconnect) {
      // Sent events will never be answered; buffered ones go out after the reconnect.
      failAcks(PendingAck::sent, "connection dropped (" + reason + ") before the ack came");
      if (wasConnected) {
        callback("ClientListener.onDisconnect",
            () -> listener.onDisconnect(this, reason, true));
      }
      return;
    }
    closeForGood("connection dropped (" + reason + ")");
    if (wasConnected) {
      callback("ClientListener.onDisconnect", () -> listener.onDisconnect(this, reason, false));
    } else {
      callback("ClientListener.onConnectError", () -> listener.onConnectError(this,
          new TransportException("could not connect: " + reason)));
    }
  }

  /** Gives up: closed for good with {@code error} as the terminal callback. */
  void fail(TransportException error) {
    if (closeForGood(error.getMessage())) {
      manager.remove(this);
      callback("ClientListener.onConnectError", () -> listener.onConnectError(this, error));
    }
  }

  /** Marks the socket closed and fails its acks and buffer; false if it already was closed. */
  private boolean closeForGood(String why) {
    synchronized (lock) {
      if (state == State.CLOSED) {
        return false;
      }
      state = State.CLOSED;
      buffer.clear();
    }
    failAcks(a -> true, why);
    return true;
  }

  @Override
  public void disconnect() {
    boolean wasConnected;
    synchronized (lock) {
      if (state == State.CLOSED) {
        return;
      }
      wasConnected = state == State.CONNECTED;
      if (wasConnected) {
        manager.send(null, new SocketPacket(SocketPacket.Type.DISCONNECT, namespace, null, null));
      }
    }
    closeForGood("connection " + namespace + " closed by the client");
    manager.remove(this);
    if (wasConnected) {
      callback("ClientListener.onDisconnect",
          () -> listener.onDisconnect(this, "io client disconnect", false));
    }
  }

  @Override
  public boolean isConnected() {
    return state == State.CONNECTED;
  }

  @Override
  protected void dispatchOutgoing(SocketPacket packet, PendingAck ack) {
    synchronized (lock) {
      if (state == State.CONNECTED && trySend(packet, ack)) {
        return;
      }
      if (state != State.CLOSED) {
        if (buffer.size() < maxBuffered) {
          buffer.add(new Buffered(packet, ack));
          return;
        }
        if (bufferFullLogged.compareAndSet(false, true)) {
          log.warn("Emit buffer of {} is full ({} events) while reconnecting; dropping new emits"
              + " (logged once)", namespace, maxBuffered);
        }
        if (ack != null) {
          failAck(ack, "emit buffer full (" + maxBuffered + ") while disconnected");
        }
        return;
      }
    }
    if (ack != null) {
      failAck(ack, "connection " + namespace + " is closed");
    } else {
      log.debug("Dropped an emit on closed connection {}", namespace);
    }
  }

  /** Sends now; true when the packet was consumed (sent, or failed for good). */
  private boolean trySend(SocketPacket packet, PendingAck ack) {
    try {
      if (!manager.send(null, packet)) {
        return false;
      }
      if (ack != null) {
        ack.markSent();
      }
    } catch (TransportException e) {
      if (ack != null) {
        failAck(ack, e.getMessage());
      } else {
        log.warn("Dropped an emit on {}: {}", namespace, e.getMessage());
      }
    }
    return true;
  }

  @Override
  protected void onAckTimedOut(PendingAck ack) {
    synchronized (lock) {
      buffer.removeIf(b -> b.ack == ack);
    }
  }

  @Override
  protected boolean sendNow(SocketPacket packet) {
    synchronized (lock) {
      try {
        return state == State.CONNECTED && manager.send(null, packet);
      } catch (TransportException e) {
        log.warn("Ack on {} not sent: {}", namespace, e.getMessage());
        return false;
      }
    }
  }

  @Override
  protected boolean acceptsEvents() {
    return state == State.CONNECTED;
  }
}
