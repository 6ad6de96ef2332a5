package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.java_websocket.enums.Opcode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The server's frames, byte for byte, seen through a bare WebSocket. */
class WireProtocolTest {
  private static final String SID = "[A-Za-z0-9_-]{20}";
  private RecordingAcceptor app;
  private WebSocketTransportServer server;
  private final List<RawClient> clients = new ArrayList<>();

  @BeforeEach
  void start() {
    app = new RecordingAcceptor();
    // A bare client never pongs by itself: pings stay out of the way except where tested.
    server = WebSocketTransportServer.builder()
        .pingInterval(Duration.ofSeconds(20))
        .pingTimeout(Duration.ofSeconds(20))
        .maxPayload(1000)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
    server.start(app);
  }

  @AfterEach
  void stop() {
    clients.forEach(RawClient::close);
    server.close();
  }

  private RawClient open() throws Exception {
    RawClient c = RawClient.open(server);
    clients.add(c);
    return c;
  }

  /** Opens, checks the OPEN packet, joins "/" and returns the socket id. */
  private RawClient joined() throws Exception {
    RawClient c = open();
    assertThat(c.text()).startsWith("0{");
    c.send("40{\"token\":\"good\"}");
    assertThat(c.text()).matches("40\\{\"sid\":\"" + SID + "\"}");
    app.expect("connect / ");
    return c;
  }

  @Test
  void bindsLoopbackOnAnEphemeralPort() {
    assertThat(server.host()).isEqualTo("127.0.0.1");
    assertThat(server.port()).isPositive();
    assertThat(server.uri().toString()).isEqualTo("http://127.0.0.1:" + server.port());
  }

  @Test
  void sendsTheOpenPacket() throws Exception {
    RawClient c = open();
    assertThat(c.text()).matches("0\\{\"sid\":\"" + SID + "\",\"upgrades\":\\[],"
        + "\"pingInterval\":20000,\"pingTimeout\":20000,\"maxPayload\":1000}");
    assertThat(server.sessionTcpNoDelay()).containsExactly(true);
  }

  @Test
  void connectReplyConnectErrorAndNamespaces() throws Exception {
    RawClient c = joined();
    c.send("40/admin,{\"token\":\"good\"}");
    assertThat(c.text()).matches("40/admin,\\{\"sid\":\"" + SID + "\"}");
    c.send("40/nope,");
    assertThat(c.text()).isEqualTo("44/nope,{\"message\":\"Invalid namespace\"}");
    c.send("40/admin,{\"token\":\"bad\"}"); // already joined: ignored
    c.send("42/admin,[\"echo\",\"x\"]");
    assertThat(c.text()).isEqualTo("42/admin,[\"echoed\",\"x\"]");
  }

  @Test
  void refusedAuthIsAConnectErrorWithData() throws Exception {
    RawClient c = open();
    c.text();
    c.send("40{\"token\":\"bad\"}");
    assertThat(c.text()).isEqualTo("44{\"message\":\"not authorized\",\"data\":{\"reason\":\"bad token\"}}");
    // The Engine.IO connection stays; a second try may succeed.
    c.send("40{\"token\":\"good\"}");
    assertThat(c.text()).startsWith("40{\"sid\":");
  }

  @Test
  void eventsAndAcks() throws Exception {
    RawClient c = joined();
    c.send("42[\"echo\",1,{\"a\":null}]");
    assertThat(c.text()).isEqualTo("42[\"echoed\",1,{\"a\":null}]");
    c.send("4212[\"sum\",2,3]");
    assertThat(c.text()).isEqualTo("4312[5]");
    c.send("42[\"ask\"]");
    assertThat(c.text()).isEqualTo("420[\"question\",21]");
    c.send("430[42]");
    assertThat(c.text()).isEqualTo("42[\"answered\",42]");
  }

  @Test
  void binaryAttachmentsAreBareBinaryFrames() throws Exception {
    RawClient c = joined();
    c.send("451-7[\"bin\",{\"_placeholder\":true,\"num\":0}]");
    c.send(new byte[] {1, 2, 3});
    assertThat(c.text()).isEqualTo("461-7[{\"_placeholder\":true,\"num\":0}]");
    assertThat(c.binary()).containsExactly(1, 2, 3);
    assertThat(c.text()).isEqualTo("451-[\"bin-back\",{\"_placeholder\":true,\"num\":0}]");
    assertThat(c.binary()).containsExactly(1, 2, 3);
    assertThat(app.expect("event / bin")).isEqualTo("event / bin [bin:3]");
  }

  @Test
  void disconnectBothWays() throws Exception {
    RawClient c = joined();
    c.send("42[\"kick\"]");
    assertThat(c.text()).isEqualTo("41");
    c.send("40/admin,{}");
    assertThat(c.text()).startsWith("40/admin,{\"sid\":");
    // Two connections: their records may interleave.
    List<String> records = List.of(app.expect(""), app.expect(""));
    assertThat(records).anyMatch(r -> r.startsWith("disconnect / ") && r.endsWith("server namespace disconnect"));
    assertThat(records).anyMatch(r -> r.startsWith("connect /admin "));
    c.send("41/admin,");
    assertThat(app.expect("disconnect /admin ")).endsWith("client namespace disconnect");
  }

  @Test
  void pingsAndClosesWithoutPong() throws Exception {
    server.close();
    server = WebSocketTransportServer.builder()
        .pingInterval(Duration.ofMillis(200)).pingTimeout(Duration.ofMillis(500)).build();
    server.start(app);
    RawClient c = joined();
    assertThat(c.text()).isEqualTo("2");
    c.send("3");
    assertThat(c.text()).isEqualTo("2");
    // No pong this time.
    assertThat(c.closeCodeAndReason()).isEqualTo("1000 ping timeout");
    assertThat(app.expect("disconnect / ")).endsWith("ping timeout");
  }

  @Test
  void invalidPacketsCloseWith1002() throws Exception {
    for (Object bad : List.of("4garbage", "42[\"connect\"]", "2", "9", new byte[] {1})) {
      RawClient c = joined();
      if (bad instanceof String) {
        c.send((String) bad);
      } else {
        c.send((byte[]) bad);
      }
      assertThat(c.closeCodeAndReason()).as("for %s", bad).isEqualTo("1002 parse error");
      assertThat(app.expect("disconnect / ")).endsWith("parse error");
    }
  }

  @Test
  void aMessageOverMaxPayloadClosesWith1009EvenInFragments() throws Exception {
    RawClient whole = joined();
    whole.send("42[\"echo\",\"" + "x".repeat(1000) + "\"]");
    assertThat(whole.closeCodeAndReason()).startsWith("1009");
    assertThat(app.expect("disconnect / ")).endsWith("transport error");

    RawClient fragmented = joined();
    fragmented.sendFragmentedFrame(Opcode.TEXT, ByteBuffer.wrap("42[\"echo\",\"".getBytes(StandardCharsets.UTF_8)), false);
    fragmented.sendFragmentedFrame(Opcode.TEXT, ByteBuffer.wrap("y".repeat(600).getBytes(StandardCharsets.UTF_8)), false);
    fragmented.sendFragmentedFrame(Opcode.TEXT, ByteBuffer.wrap("y".repeat(600).getBytes(StandardCharsets.UTF_8)), true);
    assertThat(fragmented.closeCodeAndReason()).startsWith("1009");
    assertThat(app.expect("disconnect / ")).endsWith("transport error");

    RawClient bystander = joined();
    bystander.send("42[\"echo\",\"fine\"]");
    assertThat(bystander.text()).isEqualTo("42[\"echoed\",\"fine\"]");
  }

  @Test
  void noConnectWithinTheTimeoutCloses() throws Exception {
    server.close();
    server = WebSocketTransportServer.builder().connectTimeout(Duration.ofMillis(300)).build();
    server.start(app);
    RawClient c = open();
    c.text();
    assertThat(c.closeCodeAndReason()).isEqualTo("1008 connect timeout");
  }

  @Test
  void serverCloseTellsEveryConnection() throws Exception {
    RawClient c = joined();
    server.close();
    assertThat(c.closeCodeAndReason()).isEqualTo("1001 server shutting down");
    assertThat(app.expect("disconnect / ")).endsWith("server shutting down");
  }

  @Test
  void refusesOtherPathsVersionsAndTransports() throws Exception {
    assertThat(handshake("/socket.io/?EIO=4&transport=websocket", false)).startsWith("HTTP/1.1 101");
    assertThat(handshake("/socket.io?EIO=4&transport=websocket", false)).startsWith("HTTP/1.1 101");
    assertThat(handshake("/other/?EIO=4&transport=websocket", false)).doesNotStartWith("HTTP/1.1 101");
    assertThat(handshake("/socket.io/?EIO=3&transport=websocket", false)).doesNotStartWith("HTTP/1.1 101");
    assertThat(handshake("/socket.io/?EIO=4&transport=polling", false)).doesNotStartWith("HTTP/1.1 101");
    assertThat(handshake("/socket.io/?EIO=4&transport=websocket&sid=abc", false))
        .doesNotStartWith("HTTP/1.1 101");
  }

  @Test
  void declinesPermessageDeflate() throws Exception {
    String response = handshake("/socket.io/?EIO=4&transport=websocket", true);
    assertThat(response).startsWith("HTTP/1.1 101");
    assertThat(response.toLowerCase()).doesNotContain("sec-websocket-extensions");
  }

  /** A raw HTTP upgrade; returns the response head. */
  private String handshake(String path, boolean offerDeflate) throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(("GET " + path + " HTTP/1.1\r\n"
          + "Host: 127.0.0.1:" + server.port() + "\r\n"
          + "Upgrade: websocket\r\nConnection: Upgrade\r\n"
          + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
          + (offerDeflate ? "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" : "")
          + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
      StringBuilder head = new StringBuilder();
      String line;
      while ((line = in.readLine()) != null && !line.isEmpty()) {
        head.append(line).append('\n');
      }
      return head.toString();
    }
  }
}
