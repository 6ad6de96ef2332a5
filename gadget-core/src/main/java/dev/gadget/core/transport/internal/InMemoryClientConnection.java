package dev.gadget.core.transport.internal;

import static dev.gadget.core.transport.internal.InMemoryNetwork.log;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionRefusedException;
import dev.gadget.core.transport.EventHandler;
import dev.gadget.core.transport.TransportClient.ClientListener;
import dev.gadget.core.transport.TransportException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The stable client-side connection, which outlives each link to the server: every (re)connect
 * authenticates with the listening server and makes a new {@link InMemoryPair}; after a network
 * failure it reconnects with backoff, and emits wait in a {@link ReconnectBuffer} meanwhile.
 * Handlers registered on it carry over to every new pair.
 */
final class InMemoryClientConnection implements Connection {
  private final InMemoryNetwork network;
  private final InMemoryClient client;
  private final String namespace;
  private final Supplier<JsonNode> auth;
  private final ClientListener listener;
  private final Map<String, EventHandler> handlers = new ConcurrentHashMap<>();
  private final ReconnectBuffer buffer;
  private final SerialExecutor events;
  private final AtomicInteger attempts = new AtomicInteger();
  private volatile InMemoryPair pair;
  private volatile boolean stopped;

  InMemoryClientConnection(InMemoryNetwork network, InMemoryClient client, String namespace,
      Supplier<JsonNode> auth, ClientListener listener) {
    this.network = network;
    this.client = client;
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.auth = Objects.requireNonNull(auth, "auth");
    this.listener = listener == null ? new ClientListener() {} : listener;
    this.buffer = new ReconnectBuffer(network.bufferLimit());
    this.events = new SerialExecutor(network.pool());
  }

  /** Tries to connect to the listening server now; retries later when none listens. */
  void attempt() {
    if (stopped) {
      return;
    }
    InMemoryServer s = network.listening();
    if (s == null || s.isClosed()) {
      retryLater();
      return;
    }
    JsonNode payload;
    Object principal;
    try {
      payload = auth.get();
      principal = s.acceptor().authenticate(namespace, payload == null ? NullNode.getInstance()
          : payload.deepCopy());
    } catch (ConnectionRefusedException e) {
      refused(e);
      return;
    } catch (RuntimeException e) {
      log.warn("authenticate failed on the server; refusing the connection", e);
      refused(new TransportException("server error: " + e.getMessage()));
      return;
    }
    InMemoryPair p = new InMemoryPair(network, s, this, principal);
    p.clientEnd.onAll(handlers);
    s.accepted(p);
    attempts.set(0);
    pair = p;
    p.announce();
    events.execute(() -> {
      // the buffer first, then the listener, as the WebSocket client does: a send made once
      // onConnect was heard goes straight out, never into a buffer that may be full
      buffer.flush();
      listener.onConnect(this);
    });
  }

  private void refused(TransportException error) {
    stop();
    events.execute(() -> listener.onConnectError(this, error));
  }

  private void retryLater() {
    long delay = network.reconnectDelayMillis(attempts.getAndIncrement());
    network.timer().schedule(this::attempt, delay, TimeUnit.MILLISECONDS);
  }

  /** No further reconnects; the client forgets this connection. */
  private void stop() {
    stopped = true;
    client.forget(this);
  }

  /** Pair {@code p} closed; a {@code network} failure reconnects unless stopped. */
  void dropped(InMemoryPair p, String reason, boolean network) {
    if (pair == p) {
      pair = null;
    }
    buffer.hold();
    boolean again = network && !stopped;
    events.execute(() -> listener.onDisconnect(this, reason, again));
    if (again) {
      retryLater();
    } else {
      stop();
    }
  }

  /** Sends now or buffers; {@code false} when the buffer is full or the client stopped. */
  private boolean buffered(Runnable send) {
    return buffer.sendOrBuffer(send, this::isConnected, () -> stopped);
  }

  @Override
  public String id() {
    InMemoryPair p = pair;
    return p == null ? "" : p.clientEnd.id();
  }

  @Override
  public String namespace() {
    return namespace;
  }

  @Override
  public void emit(String event, List<JsonNode> args) {
    List<JsonNode> copy = InMemoryWire.copy(args);
    buffered(() -> {
      InMemoryPair p = pair;
      if (p != null) {
        p.clientEnd.emit(event, copy);
      }
    });
  }

  @Override
  public CompletableFuture<List<JsonNode>> emitWithAck(
      String event, List<JsonNode> args, Duration timeout) {
    CompletableFuture<List<JsonNode>> result = new CompletableFuture<>();
    List<JsonNode> copy = InMemoryWire.copy(args);
    network.timer().schedule(
        () -> result.completeExceptionally(PendingAcks.timedOut(event, timeout)),
        timeout.toNanos(), TimeUnit.NANOSECONDS);
    boolean queued = buffered(() -> {
      InMemoryPair p = pair;
      if (p == null) {
        result.completeExceptionally(new TransportException("not connected"));
        return;
      }
      p.clientEnd.emitWithAck(event, copy, timeout).whenComplete((v, e) -> {
        if (e != null) {
          result.completeExceptionally(e);
        } else {
          result.complete(v);
        }
      });
    });
    if (!queued) {
      result.completeExceptionally(new TransportException(stopped
          ? "the connection was closed" : "the disconnected buffer is full"));
    }
    return result;
  }

  @Override
  public void on(String event, EventHandler handler) {
    handlers.put(event, handler);
    InMemoryPair p = pair;
    if (p != null) {
      p.clientEnd.on(event, handler);
    }
  }

  @Override
  public boolean isConnected() {
    InMemoryPair p = pair;
    return p != null && p.isOpen();
  }

  @Override
  public void disconnect() {
    stop();
    InMemoryPair p = pair;
    if (p != null) {
      p.close("client namespace disconnect", false);
    }
  }
}
