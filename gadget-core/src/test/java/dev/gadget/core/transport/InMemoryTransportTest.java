package dev.gadget.core.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

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

  @Test
  void aFullDisconnectedBufferRefusesNewEmits() throws Exception {
    InMemoryTransport offline = new InMemoryTransport(
        Duration.ofMillis(10), Duration.ofMillis(50), 2);
    TransportClient client = offline.client();
    try {
      Connection c = client.connect("/", () -> token("good"), new TransportClient.ClientListener() {});
      CompletableFuture<?> first = c.emitWithAck("echo", args(TextNode.valueOf("1")),
          Duration.ofSeconds(30));
      CompletableFuture<?> second = c.emitWithAck("echo", args(TextNode.valueOf("2")),
          Duration.ofSeconds(30));
      CompletableFuture<?> third = c.emitWithAck("echo", args(TextNode.valueOf("3")),
          Duration.ofSeconds(30));
      assertThatThrownBy(() -> third.get(5, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TransportException.class)
          .hasMessageContaining("buffer is full");
      assertThat(first).isNotDone();
      assertThat(second).isNotDone();

      // once a server listens, the buffered two go through
      offline.server().start(acceptor);
      assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(List.of(TextNode.valueOf("1")));
      assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(List.of(TextNode.valueOf("2")));
    } finally {
      client.close();
    }
  }
}
