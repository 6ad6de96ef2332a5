/**
 * A Socket.IO-compatible (Engine.IO v4, Socket.IO v5, WebSocket only) Gadget transport on
 * Java-WebSocket: {@link dev.gadget.transport.ws.WebSocketTransportServer} and
 * {@link dev.gadget.transport.ws.WebSocketTransportClient}. The packet codec and the connection
 * machinery live in an internal package that is not exported.
 */
module dev.gadget.transport.ws {
  requires transitive dev.gadget.core;
  requires org.java_websocket;

  exports dev.gadget.transport.ws;
}
