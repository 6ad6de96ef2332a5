package dev.gadget.core.transport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.gadget.core.transport.internal.SerialExecutor;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import dev.gadget.core.transport.TransportClient.ClientListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A transport inside one JVM: the "network" that {@link #server() servers} listen on and
 * {@link #client() clients} connect through. It behaves like the WebSocket transport (arguments
 * are copied as if sent over the wire, per-connection ordering, acks with timeouts, client
 * reconnect with backoff and re-authentication, a bounded buffer while disconnected), so that the
 * server and drone runtimes are tested on it without sockets.
 *
 * <p>At most one server listens at a time: {@link TransportServer#close()} it and start another
 * to simulate a server restart. {@link #severAll()} cuts every connection as a network failure
 * would; clients then reconnect by themselves.
 */
public final class InMemoryTransport {
  private static final Logger log = LoggerFactory.getLogger(InMemoryTransport.class);

  private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "gadget-inmemory-transport");
    t.setDaemon(true);
    return t;
  });
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "gadget-inmemory-timer");
    t.setDaemon(true);
    return t;
  });
  private final AtomicLong ids = new AtomicLong();
  private final Duration minBackoff;
  private final Duration maxBackoff;
  private final int bufferLimit;
  private volatile Server listening;

  /** A transport with short reconnect backoff (10 ms to 200 ms) and a 1,000-event buffer. */
  public InMemoryTransport() {
    this(Duration.ofMillis(10), Duration.ofMillis(200), 1_000);
  }

  /**
   * A transport with the given client reconnect backoff and disconnected-buffer size.
   *
   * @param minBackoff the first reconnect delay
   * @param maxBackoff the largest reconnect delay
   * @param bufferLimit how many emits a disconnected client keeps; further ones are refused
   */
  public InMemoryTransport(Duration minBackoff, Duration maxBackoff, int bufferLimit) {
    this.minBackoff = Objects.requireNonNull(minBackoff, "minBackoff");
    this.maxBackoff = Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (bufferLimit < 1) {
      throw new IllegalArgumentException("bufferLimit < 1");
    }
    this.bufferLimit = bufferLimit;
  }

  /** A new server on this transport. Only one may listen at a time. */
  public TransportServer server() {
    return new Server();
  }

  /** A new client on this transport. */
  public TransportClient client() {
    return new Client();
  }

  /** Cuts every open connection as a network failure would ("transport close"). */
  public void severAll() {
    Server s = listening;
    if (s != null) {
      for (Pair p : List.copyOf(s.pairs)) {
        p.close("transport close", true);
      }
    }
  }

  private String nextId() {
    return "mem-" + ids.incrementAndGet();
  }

  /** One accepted connection: both ends. */
  private final class Pair {
    final End serverEnd;
    final End clientEnd;
    final ClientConn owner;
    final Server server;
    final Object principal;
    final AtomicBoolean open = new AtomicBoolean(true);

    Pair(Server server, ClientConn owner, Object principal) {
      this.server = server;
      this.owner = owner;
      this.principal = principal;
      String id = nextId();
      this.serverEnd = new End(id, owner.namespace);
      this.clientEnd = new End(id, owner.namespace);
      serverEnd.peer = clientEnd;
      clientEnd.peer = serverEnd;
    }

    /** Closes both ends. {@code network}: a failure (the client reconnects) not a DISCONNECT. */
    void close(String reason, boolean network) {
      if (!open.compareAndSet(true, false)) {
        return;
      }
      server.pairs.remove(this);
      serverEnd.closed(reason);
      clientEnd.closed(reason);
      serverEnd.dispatch.execute(() -> server.acceptor.onDisconnect(serverEnd, principal, reason));
      owner.dropped(this, reason, network);
    }
  }

  /** One end of a pair: what {@link Connection} methods act on. */
  private class End implements Connection {
    final String id;
    final String namespace;
    final SerialExecutor dispatch = new SerialExecutor(pool);
    final Map<String, EventHandler> handlers = new ConcurrentHashMap<>();
    final Map<Long, CompletableFuture<List<JsonNode>>> acks = new ConcurrentHashMap<>();
    final AtomicLong ackIds = new AtomicLong();
    volatile End peer;
    volatile Pair pair;
    volatile boolean closed;

    End(String id, String namespace) {
      this.id = id;
      this.namespace = namespace;
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
      long ackId = ackIds.incrementAndGet();
      acks.put(ackId, future);
      timer.schedule(() -> {
        if (acks.remove(ackId) != null) {
          future.completeExceptionally(
              new TransportException("no ack for '" + event + "' within " + timeout));
        }
      }, timeout.toNanos(), TimeUnit.NANOSECONDS);
      send(event, args, ackId);
      return future;
    }

    void send(String event, List<JsonNode> args, Long ackId) {
      Objects.requireNonNull(event, "event");
      List<JsonNode> copy = copy(args);
      End to = peer;
      if (closed || to == null) {
        log.debug("dropping '{}' on closed connection {}", event, id);
        return;
      }
      to.dispatch.execute(() -> to.deliver(event, copy, ackId, this));
    }

    void deliver(String event, List<JsonNode> args, Long ackId, End from) {
      if (closed) {
        return;
      }
      EventHandler h = handlers.get(event);
      if (h == null) {
        log.debug("no handler for '{}' on {}", event, id);
        return;
      }
      Ack ack = null;
      if (ackId != null) {
        AtomicBoolean sent = new AtomicBoolean();
        ack = ackArgs -> {
          if (sent.compareAndSet(false, true)) {
            List<JsonNode> reply = copy(ackArgs);
            from.dispatch.execute(() -> {
              CompletableFuture<List<JsonNode>> f = from.acks.remove(ackId);
              if (f != null) {
                f.complete(reply);
              }
            });
          }
        };
      }
      h.handle(args, ack);
    }

    void closed(String reason) {
      closed = true;
      for (Long k : List.copyOf(acks.keySet())) {
        CompletableFuture<List<JsonNode>> f = acks.remove(k);
        if (f != null) {
          f.completeExceptionally(new TransportException("connection closed: " + reason));
        }
      }
    }

    @Override
    public void on(String event, EventHandler handler) {
      handlers.put(Objects.requireNonNull(event, "event"), Objects.requireNonNull(handler, "handler"));
    }

    @Override
    public boolean isConnected() {
      return !closed;
    }

    @Override
    public void disconnect() {
      Pair p = pair;
      if (p != null) {
        p.close("io server disconnect", false);
      }
    }
  }

  private static List<JsonNode> copy(List<JsonNode> args) {
    if (args == null) {
      return List.of();
    }
    List<JsonNode> out = new ArrayList<>(args.size());
    for (JsonNode a : args) {
      out.add(a == null ? NullNode.getInstance() : a.deepCopy());
    }
    return out;
  }

  private final class Server implements TransportServer {
    final Set<Pair> pairs = ConcurrentHashMap.newKeySet();
    volatile ConnectionAcceptor acceptor;
    final AtomicBoolean closed = new AtomicBoolean();

    @Override
    public void start(ConnectionAcceptor acceptor) {
      Objects.requireNonNull(acceptor, "acceptor");
      synchronized (InMemoryTransport.this) {
        if (this.acceptor != null) {
          throw new IllegalStateException("already started");
        }
        if (listening != null) {
          throw new TransportException("another in-memory server is listening");
        }
        this.acceptor = acceptor;
        listening = this;
      }
    }

    @Override
    public void close() {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      synchronized (InMemoryTransport.this) {
        if (listening == this) {
          listening = null;
        }
      }
      for (Pair p : List.copyOf(pairs)) {
        p.close("transport close", true);
      }
    }
  }

  private final class Client implements TransportClient {
    final Set<ClientConn> conns = ConcurrentHashMap.newKeySet();

    @Override
    public Connection connect(String namespace, Supplier<JsonNode> auth, ClientListener listener) {
      ClientConn c = new ClientConn(this, namespace, auth, listener);
      conns.add(c);
      c.attempt();
      return c;
    }

    @Override
    public void close() {
      for (ClientConn c : List.copyOf(conns)) {
        c.disconnect();
      }
    }
  }

  /** The stable client-side connection; each (re)connect makes a new {@link Pair}. */
  private final class ClientConn implements Connection {
    final Client client;
    final String namespace;
    final Supplier<JsonNode> auth;
    final ClientListener listener;
    final Map<String, EventHandler> handlers = new ConcurrentHashMap<>();
    final Deque<Runnable> buffer = new ArrayDeque<>();
    final SerialExecutor events = new SerialExecutor(pool);
    final AtomicInteger attempts = new AtomicInteger();
    final AtomicBoolean warnedFull = new AtomicBoolean();
    volatile Pair pair;
    volatile boolean stopped;
    /** Whether emits may go straight out: connected and the buffer flushed. Guarded by buffer. */
    boolean ready;

    ClientConn(Client client, String namespace, Supplier<JsonNode> auth, ClientListener listener) {
      this.client = client;
      this.namespace = Objects.requireNonNull(namespace, "namespace");
      this.auth = Objects.requireNonNull(auth, "auth");
      this.listener = listener == null ? new ClientListener() {} : listener;
    }

    void attempt() {
      if (stopped) {
        return;
      }
      Server s = listening;
      if (s == null || s.closed.get()) {
        retryLater();
        return;
      }
      JsonNode payload;
      Object principal;
      try {
        payload = auth.get();
        principal = s.acceptor.authenticate(namespace, payload == null ? NullNode.getInstance()
            : payload.deepCopy());
      } catch (ConnectionRefusedException e) {
        stopped = true;
        client.conns.remove(this);
        events.execute(() -> listener.onConnectError(this, e));
        return;
      } catch (RuntimeException e) {
        log.warn("authenticate failed on the server; refusing the connection", e);
        stopped = true;
        client.conns.remove(this);
        TransportException error = new TransportException("server error: " + e.getMessage());
        events.execute(() -> listener.onConnectError(this, error));
        return;
      }
      Pair p = new Pair(s, this, principal);
      p.serverEnd.pair = p;
      p.clientEnd.pair = p;
      p.clientEnd.handlers.putAll(handlers);
      s.pairs.add(p);
      attempts.set(0);
      pair = p;
      p.serverEnd.dispatch.execute(() -> s.acceptor.onConnect(p.serverEnd, principal));
      events.execute(() -> {
        listener.onConnect(this);
        flush();
      });
    }

    void retryLater() {
      int n = attempts.getAndIncrement();
      long base = Math.min(maxBackoff.toMillis(), minBackoff.toMillis() << Math.min(n, 20));
      long delay = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
      timer.schedule(this::attempt, delay, TimeUnit.MILLISECONDS);
    }

    void dropped(Pair p, String reason, boolean network) {
      if (pair == p) {
        pair = null;
      }
      synchronized (buffer) {
        ready = false;
      }
      boolean again = network && !stopped;
      events.execute(() -> listener.onDisconnect(this, reason, again));
      if (again) {
        retryLater();
      } else {
        stopped = true;
        client.conns.remove(this);
      }
    }

    /** Sends what was buffered, in order; new emits queue behind it until it is done. */
    void flush() {
      while (true) {
        Runnable next;
        synchronized (buffer) {
          next = buffer.poll();
          if (next == null) {
            ready = true;
            return;
          }
        }
        next.run();
      }
    }

    /** Sends now or buffers; {@code false} when the buffer is full or the client stopped. */
    private boolean buffered(Runnable send) {
      synchronized (buffer) {
        Pair p = pair;
        if (ready && buffer.isEmpty() && p != null && p.open.get()) {
          send.run();
          return true;
        }
        if (stopped) {
          return false;
        }
        if (buffer.size() >= bufferLimit) {
          if (warnedFull.compareAndSet(false, true)) {
            log.warn("client buffer full ({} events) while disconnected; refusing new emits",
                bufferLimit);
          }
          return false;
        }
        buffer.add(send);
      }
      return true;
    }

    @Override
    public String id() {
      Pair p = pair;
      return p == null ? "" : p.clientEnd.id;
    }

    @Override
    public String namespace() {
      return namespace;
    }

    @Override
    public void emit(String event, List<JsonNode> args) {
      List<JsonNode> copy = copy(args);
      buffered(() -> {
        Pair p = pair;
        if (p != null) {
          p.clientEnd.emit(event, copy);
        }
      });
    }

    @Override
    public CompletableFuture<List<JsonNode>> emitWithAck(
        String event, List<JsonNode> args, Duration timeout) {
      CompletableFuture<List<JsonNode>> result = new CompletableFuture<>();
      List<JsonNode> copy = copy(args);
      timer.schedule(() -> result.completeExceptionally(
          new TransportException("no ack for '" + event + "' within " + timeout)),
          timeout.toNanos(), TimeUnit.NANOSECONDS);
      boolean queued = buffered(() -> {
        Pair p = pair;
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
      Pair p = pair;
      if (p != null) {
        p.clientEnd.on(event, handler);
      }
    }

    @Override
    public boolean isConnected() {
      Pair p = pair;
      return p != null && p.open.get();
    }

    @Override
    public void disconnect() {
      stopped = true;
      client.conns.remove(this);
      Pair p = pair;
      if (p != null) {
        p.close("client namespace disconnect", false);
      }
    }
  }
}
