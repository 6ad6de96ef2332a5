package dev.gadget.transport.ws;

import dev.gadget.core.transport.TransportClient;
import dev.gadget.core.transport.TransportContract;
import dev.gadget.core.transport.TransportServer;
import java.net.URI;
import java.time.Duration;

/**
 * The core {@link TransportContract} against the WebSocket transport, over real sockets on
 * 127.0.0.1. A "restarted" server binds the port of the one before it.
 */
class WebSocketTransportContractTest extends TransportContract {
  private WebSocketTransportServer last;

  @Override
  protected TransportServer newServer() {
    int port = last == null ? 0 : last.port();
    last = WebSocketTransportServer.builder().port(port).build();
    return last;
  }

  @Override
  protected TransportClient newClient() {
    return WebSocketTransportClient.builder()
        .uri(URI.create("http://127.0.0.1:" + last.port()))
        .reconnectionDelay(Duration.ofMillis(50))
        .reconnectionDelayMax(Duration.ofMillis(200))
        .build();
  }

  @Override
  protected void severAll() {
    last.severAll();
  }
}
