package dev.gadget.core.transport;

class InMemoryTransportTest extends TransportContract {
  private final InMemoryTransport transport = new InMemoryTransport();

  @Override
  protected TransportServer newServer() {
    return transport.server();
  }

  @Override
  protected TransportClient newClient() {
    return transport.client();
  }

  @Override
  protected void severAll() {
    transport.severAll();
  }
}
