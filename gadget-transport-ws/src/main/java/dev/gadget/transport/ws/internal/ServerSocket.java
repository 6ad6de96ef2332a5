package dev.gadget.transport.ws.internal;

import dev.gadget.core.transport.ConnectionAcceptor;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;

/** The server's side of one namespace on one Engine.IO connection. */
final class ServerSocket extends SocketBase {
  enum State { PENDING, CONNECTED, CLOSED }

  private final ServerSession session;
  private final ConnectionAcceptor acceptor;
  private final AtomicReference<State> state = new AtomicReference<>(State.PENDING);
  private volatile Object principal;

  ServerSocket(String namespace, ServerSession session, ConnectionAcceptor acceptor,
      Executor pool, ScheduledExecutorService timer) {
    super(namespace, pool, timer);
    this.session = session;
    this.acceptor = acceptor;
  }

  /** Accepted: takes its id and principal. False when the session closed meanwhile. */
  boolean accept(String socketId, Object principal) {
    this.id = socketId;
    this.principal = principal;
    return state.compareAndSet(State.PENDING, State.CONNECTED);
  }

  Object principal() {
    return principal;
  }

  /** Refused or abandoned before it was accepted. */
  void abandon() {
    state.compareAndSet(State.PENDING, State.CLOSED);
  }

  State state() {
    return state.get();
  }

  @Override
  protected void dispatchOutgoing(SocketPacket packet, PendingAck ack) {
    if (state.get() == State.CONNECTED && session.send(packet)) {
      if (ack != null) {
        ack.markSent();
      }
      return;
    }
    if (ack != null) {
      failAck(ack, "connection " + namespace + " is closed");
    }
  }

  @Override
  protected boolean sendNow(SocketPacket packet) {
    return state.get() == State.CONNECTED && session.send(packet);
  }

  @Override
  protected boolean acceptsEvents() {
    return state.get() == State.CONNECTED;
  }

  @Override
  public boolean isConnected() {
    return state.get() == State.CONNECTED && session.isOpen();
  }

  @Override
  public void disconnect() {
    if (state.compareAndSet(State.CONNECTED, State.CLOSED)) {
      session.send(new SocketPacket(SocketPacket.Type.DISCONNECT, namespace, null, null));
      session.remove(this);
      afterClose("server namespace disconnect");
    } else if (state.compareAndSet(State.PENDING, State.CLOSED)) {
      session.remove(this);
    }
  }

  /** Logged once per server and handler, not per connection: peers open as many as they like. */
  @Override
  protected void handlerFailed(String event, RuntimeException e) {
    session.handlerFailed(namespace, event, e);
  }

  /** The peer or the transport closed this socket. */
  void closed(String reason) {
    if (state.getAndSet(State.CLOSED) == State.CONNECTED) {
      afterClose(reason);
    }
  }

  private void afterClose(String reason) {
    failAcks(a -> true, "connection " + namespace + " closed: " + reason);
    callback("ConnectionAcceptor.onDisconnect",
        () -> acceptor.onDisconnect(this, principal, reason));
  }
}
