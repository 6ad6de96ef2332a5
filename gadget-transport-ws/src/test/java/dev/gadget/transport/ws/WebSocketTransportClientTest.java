package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client's own behaviour: buffering, ack failures, giving up, misuse. */
class WebSocketTransportClientTest {
  private final RecordingAcceptor app = new RecordingAcceptor();
  private WebSocketTransportServer server;
  private WebSocketTransportClient client;

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** A port where nothing listens (a server started and closed), to start a server on later. */
  private int deadPort() {
    WebSocketTransportServer s = WebSocketTransportServer.builder().build();
    s.start(app);
    s.close();
    return s.port();
  }

  private void startServer(int port) {
    server = WebSocketTransportServer.builder().port(port).build();
    server.start(app);
  }

  private WebSocketTransportClient.Builder clientFor(int port) {
    return WebSocketTransportClient.builder()
        .uri(URI.create("http://127.0.0.1:" + port))
        .reconnectionDelay(Duration.ofMillis(50))
        .reconnectionDelayMax(Duration.ofMillis(100));
  }

  private static Supplier<JsonNode> good() {
    return () -> JsonNodeFactory.instance.objectNode().put("token", "good");
  }

  private static List<JsonNode> n(int i) {
    return List.of(IntNode.valueOf(i), IntNode.valueOf(0));
  }

  @Test
  void buffersABoundedNumberOfEmitsUntilTheServerIsUp() throws Exception {
    int port = deadPort();
    client = clientFor(port).maxBufferedEmits(2).build();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", good(), listener);
    CompletableFuture<List<JsonNode>> first = c.emitWithAck("sum", n(1), Duration.ofSeconds(10));
    CompletableFuture<List<JsonNode>> second = c.emitWithAck("sum", n(2), Duration.ofSeconds(10));
    CompletableFuture<List<JsonNode>> third = c.emitWithAck("sum", n(3), Duration.ofSeconds(10));
    assertThatThrownBy(() -> third.get(1, TimeUnit.SECONDS))
        .hasCauseInstanceOf(TransportException.class)
        .hasMessageContaining("emit buffer full (2)");
    assertThat(c.isConnected()).isFalse();

    startServer(port);
    listener.expect("connect");
    assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(IntNode.valueOf(1));
    assertThat(second.get(10, TimeUnit.SECONDS)).containsExactly(IntNode.valueOf(2));
  }

  @Test
  void aBufferedEmitWhoseAckTimedOutIsNeverSent() throws Exception {
    int port = deadPort();
    client = clientFor(port).build();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", good(), listener);
    CompletableFuture<List<JsonNode>> late =
        c.emitWithAck("echo", List.of(TextNode.valueOf("stale")), Duration.ofMillis(100));
    assertThatThrownBy(() -> late.get(5, TimeUnit.SECONDS)).hasMessageContaining("no ack for 'echo'");
    c.emit("echo", List.of(TextNode.valueOf("fresh")));

    startServer(port);
    listener.expect("connect");
    app.expect("connect / ");
    assertThat(app.expect("event / echo")).isEqualTo("event / echo [\"fresh\"]");
  }

  @Test
  void anAckInFlightFailsWhenTheConnectionDrops() throws Exception {
    startServer(0);
    client = clientFor(server.port()).build();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", good(), listener);
    listener.expect("connect");
    CompletableFuture<List<JsonNode>> pending =
        c.emitWithAck("nobody-answers", List.of(), Duration.ofSeconds(30));
    app.expect("connect / ");
    server.severAll();
    assertThatThrownBy(() -> pending.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TransportException.class)
        .hasMessageContaining("connection dropped");
    assertThat(listener.expect("disconnect")).isEqualTo("disconnect transport close true");
    listener.expect("connect");
  }

  @Test
  void givesUpAfterTheConfiguredAttempts() throws Exception {
    client = clientFor(deadPort()).reconnectionAttempts(2).build();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", good(), listener);
    assertThat(listener.expect("connect_error")).startsWith("connect_error could not connect: connect error: Connection refused");
    assertThatThrownBy(() -> c.emitWithAck("x", List.of(), Duration.ofSeconds(5)).get(1, TimeUnit.SECONDS))
        .hasMessageContaining("is closed");
  }

  @Test
  void withoutReconnectionADropIsFinal() throws Exception {
    startServer(0);
    client = clientFor(server.port()).reconnection(false).build();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", good(), listener);
    listener.expect("connect");
    server.severAll();
    assertThat(listener.expect("disconnect")).isEqualTo("disconnect transport close false");
    assertThat(c.isConnected()).isFalse();
    listener.expectNothingFor(Duration.ofMillis(300));
    // The namespace is free again.
    RecordingListener again = new RecordingListener();
    client.connect("/", good(), again);
    again.expect("connect");
  }

  @Test
  void closeDisconnectsEveryNamespace() throws Exception {
    startServer(0);
    client = clientFor(server.port()).build();
    RecordingListener root = new RecordingListener();
    RecordingListener admin = new RecordingListener();
    client.connect("/", good(), root);
    client.connect("/admin", good(), admin);
    root.expect("connect");
    admin.expect("connect");
    client.close();
    assertThat(root.expect("disconnect")).isEqualTo("disconnect io client disconnect false");
    assertThat(admin.expect("disconnect")).isEqualTo("disconnect io client disconnect false");
    // Each namespace's records are in order; the two namespaces interleave.
    List<String> records = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      records.add(app.records.poll(10, TimeUnit.SECONDS));
    }
    assertThat(records).filteredOn(r -> r.startsWith("disconnect "))
        .hasSize(2).allMatch(r -> r.endsWith(" client namespace disconnect"));
    assertThat(records).filteredOn(r -> r.startsWith("connect ")).hasSize(2);
    assertThatThrownBy(() -> client.connect("/", good(), new RecordingListener()))
        .isInstanceOf(IllegalStateException.class);
    client.close(); // idempotent
  }

  @Test
  void aBadAuthPayloadOrSupplierIsAConnectError() throws Exception {
    startServer(0);
    client = clientFor(server.port()).build();
    RecordingListener notAnObject = new RecordingListener();
    client.connect("/", () -> TextNode.valueOf("token"), notAnObject);
    assertThat(notAnObject.expect("connect_error")).contains("must be a JSON object");
    RecordingListener throwing = new RecordingListener();
    client.connect("/admin", () -> {
      throw new IllegalStateException("vault down");
    }, throwing);
    assertThat(throwing.expect("connect_error")).contains("auth supplier failed");
    // No auth at all is a CONNECT without payload: the acceptor sees NullNode (here: accepted).
    RecordingListener none = new RecordingListener();
    client.connect("/", () -> null, none);
    none.expect("connect");
  }

  @Test
  void misuseIsRefusedLoudly() throws Exception {
    startServer(0);
    client = clientFor(server.port()).build();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", good(), listener);
    assertThatThrownBy(() -> client.connect("/", good(), listener))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("already connected");
    assertThatThrownBy(() -> client.connect("no-slash", good(), listener))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> c.emit("disconnect", List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
    assertThatThrownBy(() -> c.emitWithAck("x", List.of(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebSocketTransportClient.builder().uri(URI.create("ftp://x")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> WebSocketTransportClient.builder().build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> server.start(app)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aPortInUseIsATransportException() {
    startServer(0);
    WebSocketTransportServer second = WebSocketTransportServer.builder().port(server.port()).build();
    assertThatThrownBy(() -> second.start(app))
        .isInstanceOf(TransportException.class)
        .hasMessageContaining("cannot listen on 127.0.0.1:" + server.port());
    second.close();
  }
}
