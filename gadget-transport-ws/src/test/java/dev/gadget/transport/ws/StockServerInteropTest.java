package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.ConnectionRefusedException;
import dev.gadget.core.transport.TransportException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link WebSocketTransportClient} against a stock npm socket.io 4.8 server, run by
 * {@code src/test/node/server.js} (one node process per test).
 */
class StockServerInteropTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private NodeProcess node;
  private WebSocketTransportClient client;

  @AfterEach
  void tearDown() {
    if (client != null) {
      client.close();
    }
    if (node != null) {
      node.close();
    }
  }

  private void start(String... serverArgs) throws Exception {
    node = NodeProcess.start("server.js", serverArgs);
    int port = node.expect("listening").get("port").asInt();
    client = WebSocketTransportClient.builder()
        .uri(URI.create("http://127.0.0.1:" + port))
        .reconnectionDelay(Duration.ofMillis(100))
        .reconnectionDelayMax(Duration.ofMillis(300))
        .build();
  }

  private static Supplier<JsonNode> token(String token) {
    return () -> JsonNodeFactory.instance.objectNode().put("token", token);
  }

  private static <T> T get(java.util.concurrent.CompletableFuture<T> f) throws Exception {
    return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void connectsWithAuthAndTheServerSeesTheSameId() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    JsonNode connection = node.expect("connection");
    assertThat(connection.get("auth").toString()).isEqualTo("{\"token\":\"good\"}");
    assertThat(listener.expect("connect ")).isEqualTo("connect " + connection.get("id").asText());
    assertThat(c.id()).isEqualTo(connection.get("id").asText());
    assertThat(c.isConnected()).isTrue();
  }

  @Test
  void eventsAndAcksBothWays() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    BlockingQueue<List<JsonNode>> echoed = new LinkedBlockingQueue<>();
    c.on("echoed", (args, ack) -> echoed.add(args));
    c.on("question", (args, ack) -> ack.send(List.of(IntNode.valueOf(args.get(0).asInt() * 2))));
    listener.expect("connect");
    node.expect("connection");

    c.emit("echo", List.of(TextNode.valueOf("a"), IntNode.valueOf(1),
        JsonNodeFactory.instance.objectNode().put("x", true)));
    assertThat(node.expect("echo").get("args").toString()).isEqualTo("[\"a\",1,{\"x\":true}]");
    assertThat(echoed.poll(10, TimeUnit.SECONDS)).hasToString("[\"a\", 1, {\"x\":true}]");

    assertThat(get(c.emitWithAck("sum", List.of(IntNode.valueOf(2), IntNode.valueOf(3)), WAIT)))
        .containsExactly(IntNode.valueOf(5));

    c.emit("ask", List.of());
    assertThat(node.expect("answer").get("answer").asInt()).isEqualTo(42);
  }

  @Test
  void anUnansweredAckTimesOut() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    listener.expect("connect");
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> get(c.emitWithAck("nobody-listens", List.of(), Duration.ofMillis(300))))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TransportException.class)
        .hasMessageContaining("no ack for 'nobody-listens' within 300 ms");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    assertThat(c.isConnected()).isTrue();
  }

  @Test
  void binaryAttachmentsBothWays() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    BlockingQueue<List<JsonNode>> back = new LinkedBlockingQueue<>();
    c.on("bin-back", (args, ack) -> back.add(args));
    listener.expect("connect");
    node.expect("connection");
    ObjectNode nested = JsonNodeFactory.instance.objectNode();
    nested.set("file", BinaryNode.valueOf("hi".getBytes(StandardCharsets.UTF_8)));
    List<JsonNode> args = List.of(BinaryNode.valueOf(new byte[] {1, 2, 3}), nested);

    List<JsonNode> acked = get(c.emitWithAck("bin", args, WAIT));
    assertThat(node.expect("bin").get("args").toString())
        .isEqualTo("[{\"base64\":\"AQID\"},{\"file\":{\"base64\":\"aGk=\"}}]");
    assertThat(acked).isEqualTo(args);
    assertThat(acked.get(0).isBinary()).isTrue();
    assertThat(back.poll(10, TimeUnit.SECONDS)).isEqualTo(args);
  }

  @Test
  void severalNamespacesShareOneEngineConnection() throws Exception {
    start();
    RecordingListener root = new RecordingListener();
    RecordingListener admin = new RecordingListener();
    client.connect("/", token("good"), root);
    Connection a = client.connect("/admin", token("good"), admin);
    root.expect("connect");
    admin.expect("connect");
    JsonNode first = node.expect("connection");
    JsonNode second = node.expect("connection");
    assertThat(List.of(first.get("nsp").asText(), second.get("nsp").asText()))
        .containsExactlyInAnyOrder("/", "/admin");
    assertThat(first.get("engineId")).isEqualTo(second.get("engineId"));
    a.emit("echo", List.of(TextNode.valueOf("hi admin")));
    JsonNode echo = node.expect("echo");
    assertThat(echo.get("nsp").asText()).isEqualTo("/admin");
  }

  @Test
  void refusedAuthIsAConnectErrorWithMessageAndData() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("bad"), listener);
    assertThat(listener.expect("connect_error")).isEqualTo("connect_error not authorized");
    assertThat(listener.lastError).isInstanceOf(ConnectionRefusedException.class);
    assertThat(((ConnectionRefusedException) listener.lastError).data().toString())
        .isEqualTo("{\"reason\":\"bad token\"}");
    assertThat(c.isConnected()).isFalse();
    assertThatThrownBy(() -> get(c.emitWithAck("sum", List.of(), WAIT)))
        .hasCauseInstanceOf(TransportException.class);
    listener.expectNothingFor(Duration.ofMillis(300));
  }

  @Test
  void anUnknownNamespaceIsAConnectError() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    client.connect("/nope", token("good"), listener);
    assertThat(listener.expect("connect_error")).isEqualTo("connect_error Invalid namespace");
  }

  @Test
  void clientDisconnectReachesTheServer() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    listener.expect("connect");
    node.expect("connection");
    c.disconnect();
    assertThat(node.expect("disconnect").get("reason").asText()).isEqualTo("client namespace disconnect");
    assertThat(listener.expect("disconnect")).isEqualTo("disconnect io client disconnect false");
    assertThat(c.isConnected()).isFalse();
  }

  @Test
  void serverDisconnectEndsTheConnectionForGood() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    listener.expect("connect");
    c.emit("kick", List.of());
    assertThat(listener.expect("disconnect")).isEqualTo("disconnect io server disconnect false");
    assertThat(node.expect("connection").get("nsp").asText()).isEqualTo("/");
    assertThat(node.expect("disconnect").get("reason").asText()).isEqualTo("server namespace disconnect");
    listener.expectNothingFor(Duration.ofMillis(500));
  }

  @Test
  void reconnectsWithFreshAuthAndFlushesTheBuffer() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    AtomicInteger calls = new AtomicInteger();
    Connection c = client.connect("/", () -> JsonNodeFactory.instance.objectNode()
        .put("token", "good").put("n", calls.incrementAndGet()), listener);
    listener.expect("connect");
    assertThat(node.expect("connection").get("auth").get("n").asInt()).isEqualTo(1);

    c.emit("drop", List.of());
    assertThat(listener.expect("disconnect")).isEqualTo("disconnect transport close true");
    assertThat(node.expect("disconnect").get("reason").asText()).isEqualTo("forced close");
    // Sent while disconnected: buffered and delivered after the reconnect.
    c.emit("echo", List.of(TextNode.valueOf("buffered")));
    listener.expect("connect");
    assertThat(node.expect("connection").get("auth").get("n").asInt()).isEqualTo(2);
    assertThat(node.expect("echo").get("args").toString()).isEqualTo("[\"buffered\"]");
  }

  @Test
  void answersPingsSoTheStockServerKeepsTheConnection() throws Exception {
    start("200", "1000");
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    listener.expect("connect");
    node.expect("connection");
    for (int i = 0; i < 4; i++) {
      node.expect("pong");
    }
    assertThat(c.isConnected()).isTrue();
    listener.expectNothingFor(Duration.ofMillis(100));
  }

  @Test
  void dropsOnPingTimeoutWhenTheServerGoesSilentAndReconnects() throws Exception {
    start("200", "1000");
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    listener.expect("connect");
    node.expect("connection");
    c.emit("stop-pinging", List.of());
    long t0 = System.nanoTime();
    assertThat(listener.expect("disconnect")).isEqualTo("disconnect ping timeout true");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    listener.expect("connect");
    assertThat(c.isConnected()).isTrue();
  }

  @Test
  void anInvalidPacketFromTheServerDropsAndReconnects() throws Exception {
    start();
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    listener.expect("connect");
    c.emit("send-garbage", List.of());
    assertThat(listener.expect("disconnect")).isEqualTo("disconnect parse error true");
    listener.expect("connect");
  }

  @Test
  void anEmitOverTheServersMaxPayloadFailsFastAndTheConnectionStays() throws Exception {
    start("25000", "20000", "1000");
    RecordingListener listener = new RecordingListener();
    Connection c = client.connect("/", token("good"), listener);
    listener.expect("connect");
    assertThatThrownBy(() -> get(c.emitWithAck("echo", List.of(TextNode.valueOf("x".repeat(2000))), WAIT)))
        .hasCauseInstanceOf(TransportException.class)
        .hasMessageContaining("exceeds the server's maxPayload of 1000 bytes");
    assertThat(get(c.emitWithAck("sum", List.of(IntNode.valueOf(1), IntNode.valueOf(1)), WAIT)))
        .containsExactly(IntNode.valueOf(2));
  }
}
