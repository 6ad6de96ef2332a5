package dev.gadget.core.transport.internal;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One accepted in-memory connection: its server end and its client end, made by each (re)connect
 * of an {@link InMemoryClientConnection}, and closed once, for both ends.
 */
final class InMemoryPair {
  final InMemoryEnd serverEnd;
  final InMemoryEnd clientEnd;
  private final InMemoryServer server;
  private final InMemoryClientConnection owner;
  private final Object principal;
  private final AtomicBoolean open = new AtomicBoolean(true);

  InMemoryPair(InMemoryNetwork network, InMemoryServer server, InMemoryClientConnection owner,
      Object principal) {
    this.server = server;
    this.owner = owner;
    this.principal = principal;
    String id = network.nextId();
    this.serverEnd = new InMemoryEnd(network, id, owner.namespace());
    this.clientEnd = new InMemoryEnd(network, id, owner.namespace());
    serverEnd.link(clientEnd, this);
    clientEnd.link(serverEnd, this);
  }

  boolean isOpen() {
    return open.get();
  }

  /** Tells the server's acceptor about this connection, on the server end's thread. */
  void announce() {
    serverEnd.dispatch(() -> server.acceptor().onConnect(serverEnd, principal));
  }

  /** Closes both ends. {@code network}: a failure (the client reconnects) not a DISCONNECT. */
  void close(String reason, boolean network) {
    if (!open.compareAndSet(true, false)) {
      return;
    }
    server.closed(this);
    serverEnd.closed(reason);
    clientEnd.closed(reason);
    serverEnd.dispatch(() -> server.acceptor().onDisconnect(serverEnd, principal, reason));
    owner.dropped(this, reason, network);
  }
}
