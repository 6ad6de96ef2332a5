package dev.gadget.core.transport.internal;

import dev.gadget.core.transport.ConnectionAcceptor;
import dev.gadget.core.transport.TransportException;
import dev.gadget.core.transport.TransportServer;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server side of the in-memory transport: listens on its {@link InMemoryNetwork} (one server
 * at a time) and keeps the connections it accepted.
 */
final class InMemoryServer implements TransportServer {
  private final InMemoryNetwork network;
  private final Set<InMemoryPair> pairs = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile ConnectionAcceptor acceptor;

  InMemoryServer(InMemoryNetwork network) {
    this.network = network;
  }

  @Override
  public void start(ConnectionAcceptor acceptor) {
    Objects.requireNonNull(acceptor, "acceptor");
    synchronized (network) {
      if (this.acceptor != null) {
        throw new IllegalStateException("already started");
      }
      if (network.listening() != null) {
        throw new TransportException("another in-memory server is listening");
      }
      this.acceptor = acceptor;
      network.listening(this);
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    synchronized (network) {
      if (network.listening() == this) {
        network.listening(null);
      }
    }
    severAll();
  }

  /** Cuts every connection as a network failure would; clients reconnect by themselves. */
  void severAll() {
    for (InMemoryPair p : List.copyOf(pairs)) {
      p.close("transport close", true);
    }
  }

  /** The acceptor given to {@link #start}; set before the server is listening. */
  ConnectionAcceptor acceptor() {
    return acceptor;
  }

  boolean isClosed() {
    return closed.get();
  }

  void accepted(InMemoryPair pair) {
    pairs.add(pair);
  }

  void closed(InMemoryPair pair) {
    pairs.remove(pair);
  }
}
