package dev.gadget.transport.ws.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Engine.IO v4 text packets, the OPEN handshake and the reconnect backoff. */
class EnginePacketTest {
  @Test
  void decodesEachType() throws Exception {
    assertThat(EnginePacket.decode("2")).isEqualTo(EnginePacket.PING);
    assertThat(EnginePacket.decode("3")).isEqualTo(EnginePacket.PONG);
    assertThat(EnginePacket.decode("1")).isEqualTo(EnginePacket.CLOSE);
    assertThat(EnginePacket.decode("2probe")).isEqualTo(new EnginePacket(EnginePacket.Type.PING, "probe"));
    assertThat(EnginePacket.decode("4hello")).isEqualTo(EnginePacket.message("hello"));
    assertThat(EnginePacket.decode("6").type()).isEqualTo(EnginePacket.Type.NOOP);
    assertThat(EnginePacket.decode("5").type()).isEqualTo(EnginePacket.Type.UPGRADE);
  }

  @Test
  void encodes() {
    assertThat(EnginePacket.PING.encode()).isEqualTo("2");
    assertThat(EnginePacket.message("2[\"a\"]").encode()).isEqualTo("42[\"a\"]");
  }

  @Test
  void rejectsEmptyAndUnknown() {
    assertThatThrownBy(() -> EnginePacket.decode("")).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> EnginePacket.decode("7")).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> EnginePacket.decode("a")).isInstanceOf(ProtocolException.class);
  }

  @Test
  void openHandshakeJson() throws Exception {
    OpenHandshake h = new OpenHandshake("lv_VI97HAXpY6yYWAAAC", List.of(), 25000, 20000, 1000000);
    assertThat(h.toJson()).isEqualTo("{\"sid\":\"lv_VI97HAXpY6yYWAAAC\",\"upgrades\":[],"
        + "\"pingInterval\":25000,\"pingTimeout\":20000,\"maxPayload\":1000000}");
    assertThat(OpenHandshake.parse(h.toJson())).isEqualTo(h);
    // The stock server's packet, with upgrades offered (ignored over WebSocket).
    OpenHandshake stock = OpenHandshake.parse("{\"sid\":\"abc\",\"upgrades\":[\"websocket\"],"
        + "\"pingInterval\":300,\"pingTimeout\":200,\"maxPayload\":1e6}");
    assertThat(stock.pingInterval()).isEqualTo(300);
    assertThat(stock.maxPayload()).isEqualTo(1_000_000);
  }

  @Test
  void rejectsAMalformedOpenHandshake() {
    assertThatThrownBy(() -> OpenHandshake.parse("{\"sid\":1}")).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> OpenHandshake.parse("[]")).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> OpenHandshake.parse(
        "{\"sid\":\"a\",\"pingInterval\":0,\"pingTimeout\":1}")).isInstanceOf(ProtocolException.class);
  }

  @Test
  void backoffDoublesIsCappedAndJittered() {
    ClientOptions o = new ClientOptions(java.net.URI.create("ws://x"), true, Duration.ofSeconds(1),
        Duration.ofSeconds(5), 0.5, 10, Duration.ofSeconds(1), 10, 100, 10);
    assertThat(o.backoffMillis(0, 0.5)).isEqualTo(1000);
    assertThat(o.backoffMillis(0, 0.0)).isEqualTo(500);
    assertThat(o.backoffMillis(0, 0.999)).isBetween(1490L, 1500L);
    assertThat(o.backoffMillis(1, 0.5)).isEqualTo(2000);
    assertThat(o.backoffMillis(2, 0.5)).isEqualTo(4000);
    assertThat(o.backoffMillis(3, 0.5)).isEqualTo(5000);
    assertThat(o.backoffMillis(40, 0.0)).isEqualTo(5000);
  }
}
