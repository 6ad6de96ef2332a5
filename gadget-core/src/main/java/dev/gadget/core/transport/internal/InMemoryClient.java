package dev.gadget.core.transport.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** The client side of the in-memory transport: opens connections and closes those still open. */
final class InMemoryClient implements TransportClient {
  private final InMemoryNetwork network;
  private final Set<InMemoryClientConnection> conns = ConcurrentHashMap.newKeySet();

  InMemoryClient(InMemoryNetwork network) {
    this.network = network;
  }

  @Override
  public Connection connect(String namespace, Supplier<JsonNode> auth, ClientListener listener,
      Consumer<Connection> setup) {
    InMemoryClientConnection c =
        new InMemoryClientConnection(network, this, namespace, auth, listener);
    setup.accept(c);
    conns.add(c);
    c.attempt();
    return c;
  }

  @Override
  public void close() {
    for (InMemoryClientConnection c : List.copyOf(conns)) {
      c.disconnect();
    }
  }

  /** A connection that stopped for good: {@link #close()} need not disconnect it. */
  void forget(InMemoryClientConnection c) {
    conns.remove(c);
  }
}
