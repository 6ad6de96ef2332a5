package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The stock npm socket.io-client 4.8 ({@code transports: ['websocket']}), run by
 * {@code src/test/node/client.js}, against a {@link WebSocketTransportServer}: one scenario per
 * test, each in its own node process and against a fresh server.
 */
class StockClientInteropTest {
  private RecordingAcceptor app;
  private WebSocketTransportServer server;

  @BeforeEach
  void startServer() {
    app = new RecordingAcceptor();
    server = WebSocketTransportServer.builder()
        .pingInterval(Duration.ofMillis(300))
        .pingTimeout(Duration.ofMillis(1000))
        .connectTimeout(Duration.ofMillis(1000))
        .maxPayload(100_000)
        .build();
    server.start(app);
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  private NodeProcess client(String scenario) throws Exception {
    return NodeProcess.start("client.js", server.uri().toString(), scenario);
  }

  @Test
  void connectsWithAuthAndGetsTheOpenHandshake() throws Exception {
    try (NodeProcess node = client("connect")) {
      JsonNode handshake = node.expect("handshake").get("data");
      assertThat(handshake.get("sid").asText()).hasSize(20);
      assertThat(handshake.get("upgrades")).isEmpty();
      assertThat(handshake.get("pingInterval").asInt()).isEqualTo(300);
      assertThat(handshake.get("pingTimeout").asInt()).isEqualTo(1000);
      assertThat(handshake.get("maxPayload").asInt()).isEqualTo(100_000);
      JsonNode connect = node.expect("connect");
      assertThat(connect.get("transport").asText()).isEqualTo("websocket");
      assertThat(connect.get("engineId").asText()).isEqualTo(handshake.get("sid").asText());
      String id = connect.get("id").asText();
      assertThat(id).isNotEqualTo(handshake.get("sid").asText());
      assertThat(app.expect("connect / ")).isEqualTo(
          "connect / " + id + " {\"token\":\"good\",\"user\":\"ada\"}");
      node.expect("done");
      assertThat(app.expect("disconnect / ")).endsWith("client namespace disconnect");
    }
  }

  @Test
  void eventsWithoutAck() throws Exception {
    try (NodeProcess node = client("echo")) {
      app.expect("connect / ");
      assertThat(node.expect("echoed").get("args").toString())
          .isEqualTo("[\"a\",1,{\"x\":[true,null]}]");
      assertThat(app.expect("event / echo")).isEqualTo("event / echo [\"a\", 1, {\"x\":[true,null]}]");
      node.expect("done");
    }
  }

  @Test
  void acksBothWaysAndAnAckTimeout() throws Exception {
    try (NodeProcess node = client("ack")) {
      assertThat(node.expect("sum").get("sum").asInt()).isEqualTo(5);
      assertThat(node.expect("answered").get("answer").asInt()).isEqualTo(42);
      assertThat(node.expect("ack-timeout").get("message").asText()).contains("no ack for 'nobody'");
      node.expect("done");
      app.expect("connect / ");
      assertThat(app.expect("answer")).isEqualTo("answer [42]");
      assertThat(app.expect("ignored-answer")).isEqualTo("ignored-answer TransportException");
    }
  }

  @Test
  void binaryAttachmentsBothWays() throws Exception {
    try (NodeProcess node = client("binary")) {
      app.expect("connect / ");
      assertThat(app.expect("event / bin")).isEqualTo(
          "event / bin [bin:3,{\"nested\":\"aGk=\",\"list\":[\"\"]}]");
      String expected = "[{\"base64\":\"AQID\"},{\"nested\":{\"base64\":\"aGk=\"},\"list\":[{\"base64\":\"\"}]}]";
      // The server acks, then emits: the ack comes first.
      assertThat(node.expect("bin-ack").get("args").toString()).isEqualTo(expected);
      assertThat(node.expect("bin-back").get("args").toString()).isEqualTo(expected);
      node.expect("done");
    }
  }

  @Test
  void severalNamespacesShareOneConnection() throws Exception {
    try (NodeProcess node = client("namespaces")) {
      JsonNode both = node.expect("both");
      assertThat(both.get("rootId").asText()).isNotEqualTo(both.get("adminId").asText());
      assertThat(node.expect("admin-echoed").get("args").toString()).isEqualTo("[\"to-admin\"]");
      assertThat(node.expect("root-echoed").get("args").toString()).isEqualTo("[\"to-root\"]");
      node.expect("done");
      assertThat(server.sessionCount()).isEqualTo(1);
    }
  }

  @Test
  void refusedAuthGetsConnectErrorWithMessageAndData() throws Exception {
    try (NodeProcess node = client("refused")) {
      JsonNode error = node.expect("connect_error");
      assertThat(error.get("message").asText()).isEqualTo("not authorized");
      assertThat(error.get("data").toString()).isEqualTo("{\"reason\":\"bad token\"}");
      node.expect("done");
      app.expectNothingFor(Duration.ofMillis(100));
    }
  }

  @Test
  void unknownNamespaceGetsConnectError() throws Exception {
    try (NodeProcess node = client("unknownNamespace")) {
      JsonNode error = node.expect("connect_error");
      assertThat(error.get("message").asText()).isEqualTo("Invalid namespace");
      assertThat(error.get("data").isNull()).isTrue();
      node.expect("done");
    }
  }

  @Test
  void clientDisconnectReachesTheServer() throws Exception {
    try (NodeProcess node = client("clientDisconnect")) {
      String id = node.expect("connect").get("id").asText();
      assertThat(app.expect("connect / ")).contains(id);
      assertThat(app.expect("disconnect / ")).isEqualTo("disconnect / " + id + " client namespace disconnect");
      node.expect("disconnected");
    }
  }

  @Test
  void serverDisconnectReachesTheClient() throws Exception {
    try (NodeProcess node = client("serverDisconnect")) {
      JsonNode disconnect = node.expect("disconnect");
      assertThat(disconnect.get("reason").asText()).isEqualTo("io server disconnect");
      assertThat(disconnect.get("active").asBoolean()).as("no automatic reconnect").isFalse();
      app.expect("connect / ");
      assertThat(app.expect("disconnect / ")).endsWith("server namespace disconnect");
    }
  }

  @Test
  void serverPingsAndTheClientsPongsKeepItAlive() throws Exception {
    try (NodeProcess node = client("heartbeat")) {
      node.expect("handshake");
      JsonNode pings = node.expect("pings");
      assertThat(pings.get("connected").asBoolean()).isTrue();
      node.expect("done");
      app.expect("connect / ");
      // Four pings answered (a missing pong closes within 1.3 s); the connection ended only
      // when node exited.
      assertThat(app.expect("disconnect / ")).endsWith("transport close");
    }
  }

  @Test
  void aClientThatStopsPongingIsClosedOnPingTimeout() throws Exception {
    try (NodeProcess node = client("noPong")) {
      node.expect("handshake");
      node.expect("connect");
      JsonNode disconnect = node.expect("disconnect");
      assertThat(disconnect.get("reason").asText()).isEqualTo("transport close");
      app.expect("connect / ");
      assertThat(app.expect("disconnect / ")).endsWith("ping timeout");
    }
  }

  @Test
  void noConnectWithinTheTimeoutClosesTheConnection() throws Exception {
    try (NodeProcess node = client("connectTimeout")) {
      node.expect("handshake");
      JsonNode close = node.expect("close");
      assertThat(close.get("reason").asText()).isEqualTo("transport close");
      assertThat(close.get("afterMs").asInt()).isBetween(800, 5000);
      assertThat(close.get("code").asInt()).isEqualTo(1008);
    }
  }

  @Test
  void anInvalidPacketClosesThatConnectionOnly() throws Exception {
    try (NodeProcess bystander = client("heartbeat"); NodeProcess node = client("invalidPacket")) {
      node.expect("handshake");
      JsonNode close = node.expect("close");
      assertThat(close.get("code").asInt()).isEqualTo(1002);
      bystander.expect("handshake");
      assertThat(bystander.expect("pings").get("connected").asBoolean()).isTrue();
    }
  }

  @Test
  void aMessageOverMaxPayloadIsRefusedWith1009() throws Exception {
    try (NodeProcess node = client("tooBig")) {
      JsonNode disconnect = node.expect("disconnect");
      assertThat(disconnect.get("reason").asText()).isEqualTo("transport close");
      assertThat(disconnect.get("code").asInt()).isEqualTo(1009);
      // The page can tell its user why: the limit is in the close frame's reason.
      assertThat(disconnect.get("closeReason").asText())
          .isEqualTo("message too large: the limit is 100000 bytes");
      app.expect("connect / ");
      assertThat(app.expect("disconnect / ")).endsWith("transport error");
    }
  }

  @Test
  void theStockClientReconnectsAndAuthenticatesAgain() throws Exception {
    try (NodeProcess node = client("reconnect")) {
      assertThat(node.expect("connect").get("n").asInt()).isEqualTo(1);
      JsonNode drop = node.expect("disconnect");
      assertThat(drop.get("active").asBoolean()).isTrue();
      assertThat(node.expect("connect").get("n").asInt()).isEqualTo(2);
      node.expect("disconnect");
      node.expect("done");
      assertThat(app.expect("connect / ")).endsWith("{\"token\":\"good\",\"n\":1}");
      // The old connection's disconnect and the new one's connect are on different connections,
      // so they may be recorded in either order.
      List<String> next = List.of(app.expect(""), app.expect(""));
      assertThat(next).anyMatch(r -> r.startsWith("disconnect / ") && r.endsWith("transport close"));
      assertThat(next).anyMatch(r -> r.startsWith("connect / ") && r.endsWith("{\"token\":\"good\",\"n\":2}"));
    }
  }
}
