package dev.gadget.core.transport.internal;

import static dev.gadget.core.transport.internal.InMemoryNetwork.log;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One end of an {@link InMemoryPair}: what {@link Connection} methods act on. Sends copy the
 * arguments onto the peer's serial executor, so each end handles events one at a time, in order.
 */
final class InMemoryEnd implements Connection {
  private final String id;
  private final String namespace;
  private final SerialExecutor dispatch;
  private final Map<String, EventHandler> handlers = new ConcurrentHashMap<>();
  private final PendingAcks acks;
  private volatile InMemoryEnd peer;
  private volatile InMemoryPair pair;
  private volatile boolean closed;

  InMemoryEnd(InMemoryNetwork network, String id, String namespace) {
    this.id = id;
    this.namespace = namespace;
    this.dispatch = new SerialExecutor(network.pool());
    this.acks = new PendingAcks(network.timer());
  }

  /** Wires this end to the other end of {@code pair}, before either is used. */
  void link(InMemoryEnd peer, InMemoryPair pair) {
    this.peer = peer;
    this.pair = pair;
  }

  /** Runs {@code task} on this end's serial executor, after the events already delivered. */
  void dispatch(Runnable task) {
    dispatch.execute(task);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String namespace() {
    return namespace;
  }

  @Override
  public void emit(String event, List<JsonNode> args) {
    send(event, args, null);
  }

  @Override
  public CompletableFuture<List<JsonNode>> emitWithAck(
      String event, List<JsonNode> args, Duration timeout) {
    CompletableFuture<List<JsonNode>> future = new CompletableFuture<>();
    long ackId = acks.register(event, timeout, future);
    send(event, args, ackId);
    return future;
  }

  private void send(String event, List<JsonNode> args, Long ackId) {
    Objects.requireNonNull(event, "event");
    List<JsonNode> copy = InMemoryWire.copy(args);
    InMemoryEnd to = peer;
    if (closed || to == null) {
      log.debug("dropping '{}' on closed connection {}", event, id);
      return;
    }
    to.dispatch.execute(() -> to.deliver(event, copy, ackId, this));
  }

  private void deliver(String event, List<JsonNode> args, Long ackId, InMemoryEnd from) {
    if (closed) {
      return;
    }
    EventHandler h = handlers.get(event);
    if (h == null) {
      log.debug("no handler for '{}' on {}", event, id);
      return;
    }
    h.handle(args, ackId == null ? null : from.answer(ackId));
  }

  /** An {@link Ack} that answers this end's pending {@code ackId}, once, on this end's thread. */
  private Ack answer(long ackId) {
    AtomicBoolean sent = new AtomicBoolean();
    return ackArgs -> {
      if (sent.compareAndSet(false, true)) {
        List<JsonNode> reply = InMemoryWire.copy(ackArgs);
        dispatch.execute(() -> acks.complete(ackId, reply));
      }
    };
  }

  /** The pair closed: drop later events and fail the acks still awaited. */
  void closed(String reason) {
    closed = true;
    acks.failAll(reason);
  }

  @Override
  public void on(String event, EventHandler handler) {
    handlers.put(Objects.requireNonNull(event, "event"), Objects.requireNonNull(handler, "handler"));
  }

  /** Registers every handler of {@code all} (a client's, carried over to a new pair). */
  void onAll(Map<String, EventHandler> all) {
    handlers.putAll(all);
  }

  @Override
  public boolean isConnected() {
    return !closed;
  }

  @Override
  public void disconnect() {
    InMemoryPair p = pair;
    if (p != null) {
      p.close("io server disconnect", false);
    }
  }
}
