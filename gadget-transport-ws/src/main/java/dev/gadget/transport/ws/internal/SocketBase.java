package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import dev.gadget.core.transport.TransportException;
import dev.gadget.core.transport.internal.SerialExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a server and a client socket share: handlers run one at a time on a {@link SerialExecutor},
 * acks are numbered per socket and time out on a shared timer, ack futures complete on the
 * handler pool (never on a network thread, never behind this socket's own handlers, so a handler
 * may block on {@code emitWithAck(...).get()}).
 */
public abstract class SocketBase implements Connection {
  private static final Logger log = LoggerFactory.getLogger(SocketBase.class);

  protected final String namespace;
  protected volatile String id;
  protected final SerialExecutor serial;
  protected final ScheduledExecutorService timer;
  private final Executor pool;
  private final ConcurrentHashMap<String, EventHandler> handlers = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Long, PendingAck> acks = new ConcurrentHashMap<>();
  private final AtomicLong nextAckId = new AtomicLong();
  private final AtomicBoolean handlerFailureLogged = new AtomicBoolean();

  protected SocketBase(String namespace, Executor pool, ScheduledExecutorService timer) {
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.pool = Objects.requireNonNull(pool, "pool");
    this.timer = Objects.requireNonNull(timer, "timer");
    this.serial = new SerialExecutor(pool);
  }

  /** An ack this socket waits for. */
  protected static final class PendingAck {
    final long id;
    final String event;
    final CompletableFuture<List<JsonNode>> future = new CompletableFuture<>();
    volatile ScheduledFuture<?> timeout;
    /** Whether the event went out on the wire (rather than into a client's buffer). */
    volatile boolean sent;

    PendingAck(long id, String event) {
      this.id = id;
      this.event = event;
    }

    public boolean sent() {
      return sent;
    }

    public void markSent() {
      sent = true;
    }
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
  public void on(String event, EventHandler handler) {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(handler, "handler");
    handlers.put(event, handler);
  }

  @Override
  public void emit(String event, List<JsonNode> args) {
    dispatchOutgoing(eventPacket(event, args, null), null);
  }

  @Override
  public CompletableFuture<List<JsonNode>> emitWithAck(
      String event, List<JsonNode> args, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    long ackId = nextAckId.getAndIncrement();
    SocketPacket packet = eventPacket(event, args, ackId);
    PendingAck pending = new PendingAck(ackId, event);
    acks.put(ackId, pending);
    try {
      pending.timeout = timer.schedule(() -> {
        if (acks.remove(pending.id, pending)) {
          onAckTimedOut(pending);
          completeExceptionally(pending, new TransportException(
              "no ack for '" + event + "' within " + timeout.toMillis() + " ms"));
        }
      }, timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      acks.remove(ackId);
      pending.future.completeExceptionally(new TransportException("transport is closed"));
      return pending.future;
    }
    dispatchOutgoing(packet, pending);
    return pending.future;
  }

  /**
   * Sends, buffers or drops an outgoing EVENT. When it cannot be sent or buffered, fail
   * {@code ack} (if any) with {@link #failAck}.
   */
  protected abstract void dispatchOutgoing(SocketPacket packet, PendingAck ack);

  /** Sends {@code packet} if the socket is connected now; returns whether it did. */
  protected abstract boolean sendNow(SocketPacket packet);

  /** Whether incoming events are delivered to handlers now. */
  protected abstract boolean acceptsEvents();

  /** Called when an ack timed out, before its future fails. */
  protected void onAckTimedOut(PendingAck ack) {}

  /** Fails one ack that has not been answered. */
  protected final void failAck(PendingAck ack, String message) {
    if (acks.remove(ack.id, ack)) {
      completeExceptionally(ack, new TransportException(message));
    }
  }

  /** Fails every ack matching {@code which}. */
  protected final void failAcks(Predicate<PendingAck> which, String message) {
    for (PendingAck ack : List.copyOf(acks.values())) {
      if (which.test(ack)) {
        failAck(ack, message);
      }
    }
  }

  private void completeExceptionally(PendingAck ack, TransportException error) {
    ScheduledFuture<?> t = ack.timeout;
    if (t != null) {
      t.cancel(false);
    }
    runOnPool(() -> ack.future.completeExceptionally(error));
  }

  private void runOnPool(Runnable task) {
    try {
      pool.execute(task);
    } catch (RejectedExecutionException e) {
      task.run();
    }
  }

  /** An incoming EVENT: delivered to its handler on this socket's serial executor. */
  public final void onEvent(SocketPacket packet) {
    onEvent(packet, () -> {});
  }

  /**
   * As {@link #onEvent(SocketPacket)}; {@code done} runs once the handler has returned. A
   * non-blocking handler runs on this thread when nothing of the socket waits.
   */
  public final void onEvent(SocketPacket packet, Runnable done) {
    EventHandler fast = nonBlockingHandler(packet);
    Runnable task = () -> {
      try {
        deliver(packet, fast);
      } finally {
        done.run();
      }
    };
    if (fast != null) {
      serial.executeInlineIfIdle(task);
    } else {
      serial.execute(task);
    }
  }

  /** The packet's handler if it never blocks (it may run on the thread that read it), or null. */
  private EventHandler nonBlockingHandler(SocketPacket packet) {
    JsonNode data = packet.data();
    EventHandler handler = data != null && data.isArray() && data.size() > 0
        ? handlers.get(data.get(0).asText())
        : null;
    return handler != null && handler.isNonBlocking() ? handler : null;
  }

  /** An incoming ACK: completes the pending future on the handler pool. */
  public final void onAck(SocketPacket packet) {
    PendingAck pending = acks.remove(packet.id());
    if (pending == null) {
      log.debug("Ack #{} on {} answers nothing pending (late or unknown); ignored",
          packet.id(), namespace);
      return;
    }
    ScheduledFuture<?> t = pending.timeout;
    if (t != null) {
      t.cancel(false);
    }
    List<JsonNode> args = toList(packet.data(), 0);
    runOnPool(() -> pending.future.complete(args));
  }

  /** Delivers an event to {@code handler}, or (null) to the one registered now for it. */
  private void deliver(SocketPacket packet, EventHandler known) {
    if (!acceptsEvents()) {
      log.debug("Dropped an event on {}: the connection is not open", namespace);
      return;
    }
    JsonNode data = packet.data();
    String event = data.get(0).asText();
    EventHandler handler = known != null ? known : handlers.get(event);
    if (handler == null) {
      log.debug("No handler for event '{}' on {}; dropped", event, namespace);
      return;
    }
    Ack ack = packet.id() == null ? null : new OnceAck(packet.id());
    try {
      handler.handle(toList(data, 1), ack);
    } catch (RuntimeException e) {
      handlerFailed(event, e);
    }
  }

  /**
   * A handler threw; the connection goes on. Logged at WARN with the stack trace the first time
   * on this connection, then at DEBUG without it.
   */
  protected void handlerFailed(String event, RuntimeException e) {
    if (handlerFailureLogged.compareAndSet(false, true)) {
      log.warn("Handler for event '{}' on {} threw; the connection goes on"
          + " (later failures on this connection are logged at DEBUG)", event, namespace, e);
    } else {
      log.debug("Handler for event '{}' on {} threw: {}", event, namespace, e.toString());
    }
  }

  /** Runs a listener or acceptor callback on the serial executor, catching what it throws. */
  protected final void callback(String what, Runnable callback) {
    serial.execute(() -> {
      try {
        callback.run();
      } catch (RuntimeException e) {
        log.warn("{} threw; ignored", what, e);
      }
    });
  }

  private final class OnceAck implements Ack {
    private final long ackId;
    private final AtomicBoolean sent = new AtomicBoolean();

    OnceAck(long ackId) {
      this.ackId = ackId;
    }

    @Override
    public void send(List<JsonNode> args) {
      if (!sent.compareAndSet(false, true)) {
        return;
      }
      ArrayNode data = JsonNodeFactory.instance.arrayNode();
      if (args != null) {
        args.forEach(a -> data.add(a == null ? NullNode.getInstance() : a));
      }
      if (!sendNow(new SocketPacket(SocketPacket.Type.ACK, namespace, ackId, data))) {
        log.debug("Ack #{} on {} not sent: the connection is closed", ackId, namespace);
      }
    }
  }

  /** An EVENT packet for {@code event} and {@code args}; checks the event name. */
  protected final SocketPacket eventPacket(String event, List<JsonNode> args, Long ackId) {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(args, "args");
    if (SocketCodec.isReserved(event)) {
      throw new IllegalArgumentException("'" + event + "' is a reserved event name");
    }
    ArrayNode data = JsonNodeFactory.instance.arrayNode(1 + args.size());
    data.add(event);
    for (JsonNode arg : args) {
      data.add(arg == null ? NullNode.getInstance() : arg);
    }
    return new SocketPacket(SocketPacket.Type.EVENT, namespace, ackId, data);
  }

  private static List<JsonNode> toList(JsonNode array, int from) {
    int n = array == null ? 0 : Math.max(0, array.size() - from);
    if (n <= 1) { // most events: one argument
      return n == 0 ? List.of() : List.of(array.get(from));
    }
    List<JsonNode> out = new ArrayList<>(n);
    for (int i = from; i < array.size(); i++) {
      out.add(array.get(i));
    }
    return List.copyOf(out);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + namespace + " " + id + "}";
  }
}
