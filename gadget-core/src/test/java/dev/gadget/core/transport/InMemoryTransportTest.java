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

  @Test
  void emitsKeepTheirOrderAcrossReconnects() throws Exception {
    java.util.List<Long> got = new java.util.concurrent.CopyOnWriteArrayList<>();
    acceptor.setup = conn -> conn.on("n", (a, ack) -> {
      got.add(a.get(0).asLong());
      if (ack != null) {
        ack.send(a);
      }
    });
    Events events = new Events();
    Connection c = client().connect("/", () -> token("good"), events);
    take(events.events, "connect");
    int total = 50_000;
    Thread sender = new Thread(() -> {
      for (long i = 0; i < total; i++) {
        c.emit("n", args(JSON.numberNode(i)));
      }
    }, "sender");
    sender.start();
    int cuts = 0;
    while (sender.isAlive() && cuts < 200) {
      transport.severAll();
      cuts++;
      await("reconnect", () -> c.isConnected() || !sender.isAlive());
    }
    sender.join(TimeUnit.SECONDS.toMillis(30));
    // Events in flight at a cut are lost (as on a real network): on a busy machine all of the
    // sender's may be. One more, sent once the cuts are over, arrives after whatever did. It is
    // sent again only while the buffer, still full of what the sender left, refuses it (a refused
    // emit is never sent, so it cannot arrive twice).
    await("connected", c::isConnected);
    await("the last event acknowledged", () -> {
      try {
        c.emitWithAck("n", args(JSON.numberNode(total)), WAIT).get(10, TimeUnit.SECONDS);
        return true;
      } catch (ExecutionException e) {
        if (e.getCause() instanceof TransportException
            && e.getCause().getMessage().contains("buffer is full")) {
          return false;
        }
        throw new AssertionError("the last event was not acknowledged", e);
      } catch (Exception e) {
        throw new AssertionError("the last event was not acknowledged", e);
      }
    });
    assertThat(cuts).isPositive();
    assertThat(got).isNotEmpty().last().isEqualTo((long) total);
    for (int i = 1; i < got.size(); i++) {
      // events may be refused while the buffer is full, but never reordered or repeated
      assertThat(got.get(i)).as("event %s after %s", got.get(i), got.get(i - 1))
          .isGreaterThan(got.get(i - 1));
    }
  }
}
