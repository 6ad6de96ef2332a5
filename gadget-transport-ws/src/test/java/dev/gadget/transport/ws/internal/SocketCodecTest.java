package dev.gadget.transport.ws.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.transport.ws.internal.SocketPacket.Type;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Socket.IO v5 codec on the literal packets of the protocol description. */
class SocketCodecTest {
  private final SocketCodec.Decoder decoder = new SocketCodec.Decoder();

  private static JsonNode json(String s) throws Exception {
    return SocketCodec.JSON.readTree(s);
  }

  private SocketPacket decode(String text) throws ProtocolException {
    SocketPacket p = decoder.text(text);
    assertThat(p).as("complete packet for %s", text).isNotNull();
    return p;
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "0",
      "0/admin,{\"token\":\"123\"}",
      "0{\"sid\":\"oSO0OpakMV_3jnilAAAA\"}",
      "0/admin,{\"sid\":\"oSO0OpakMV_3jnilAAAA\"}",
      "4{\"message\":\"Not authorized\"}",
      "4/admin,{\"message\":\"Invalid namespace\"}",
      "4{\"message\":\"no\",\"data\":{\"reason\":\"bad token\"}}",
      "1",
      "1/admin,",
      "2[\"hello\",1]",
      "2/admin,456[\"project:delete\",123]",
      "212[\"hello\"]",
      "3/admin,456[]",
      "31[\"answer\",{\"a\":[1,2]}]",
      "2[\"unicode ✓ \\\"quoted\\\"\",null,true,1.5]",
  })
  void textPacketsRoundTrip(String literal) throws Exception {
    SocketPacket packet = decode(literal);
    assertThat(SocketCodec.encode(packet).text()).isEqualTo(literal);
    assertThat(SocketCodec.encode(packet).attachments()).isEmpty();
  }

  @Test
  void decodesTheParts() throws Exception {
    SocketPacket p = decode("2/admin,456[\"project:delete\",123]");
    assertThat(p.type()).isEqualTo(Type.EVENT);
    assertThat(p.namespace()).isEqualTo("/admin");
    assertThat(p.id()).isEqualTo(456L);
    assertThat(p.data()).isEqualTo(json("[\"project:delete\",123]"));

    SocketPacket connect = decode("0");
    assertThat(connect.type()).isEqualTo(Type.CONNECT);
    assertThat(connect.namespace()).isEqualTo("/");
    assertThat(connect.id()).isNull();
    assertThat(connect.data()).isNull();

    SocketPacket disconnect = decode("1/admin,");
    assertThat(disconnect.type()).isEqualTo(Type.DISCONNECT);
    assertThat(disconnect.namespace()).isEqualTo("/admin");

    SocketPacket error = decode("4{\"message\":\"Not authorized\",\"data\":{\"code\":7}}");
    assertThat(error.type()).isEqualTo(Type.CONNECT_ERROR);
    assertThat(error.data().get("data").get("code").asInt()).isEqualTo(7);
  }

  @Test
  void encodesAnEventWithBinaryAsBinaryEventWithPlaceholders() throws Exception {
    ArrayNode data = SocketCodec.JSON.createArrayNode();
    data.add("hello");
    data.add(BinaryNode.valueOf(new byte[] {1, 2, 3}));
    SocketCodec.Encoded encoded = SocketCodec.encode(new SocketPacket(Type.EVENT, "/", null, data));
    assertThat(encoded.text()).isEqualTo("51-[\"hello\",{\"_placeholder\":true,\"num\":0}]");
    assertThat(encoded.attachments()).containsExactly(new byte[] {1, 2, 3});
    assertThat(data.get(1).isBinary()).as("the caller's tree is not changed").isTrue();
  }

  @Test
  void encodesABinaryAckWithNamespaceAndId() throws Exception {
    ArrayNode data = SocketCodec.JSON.createArrayNode();
    data.add(BinaryNode.valueOf("x".getBytes(StandardCharsets.UTF_8)));
    SocketCodec.Encoded encoded = SocketCodec.encode(new SocketPacket(Type.ACK, "/admin", 456L, data));
    assertThat(encoded.text()).isEqualTo("61-/admin,456[{\"_placeholder\":true,\"num\":0}]");
    assertThat(encoded.attachments()).containsExactly(new byte[] {'x'});
  }

  @Test
  void nestedBinaryIsNumberedInDocumentOrder() throws Exception {
    ArrayNode data = SocketCodec.JSON.createArrayNode();
    data.add("files");
    ObjectNode obj = data.addObject();
    obj.set("a", BinaryNode.valueOf(new byte[] {10}));
    obj.putArray("b").add(BinaryNode.valueOf(new byte[] {20})).add(7);
    SocketCodec.Encoded encoded = SocketCodec.encode(new SocketPacket(Type.EVENT, "/", 3L, data));
    assertThat(encoded.text()).isEqualTo("52-3[\"files\",{\"a\":{\"_placeholder\":true,\"num\":0},"
        + "\"b\":[{\"_placeholder\":true,\"num\":1},7]}]");
    assertThat(encoded.attachments()).containsExactly(new byte[] {10}, new byte[] {20});

    assertThat(decoder.text(encoded.text())).isNull();
    assertThat(decoder.isReconstructing()).isTrue();
    assertThat(decoder.binary(new byte[] {10})).isNull();
    SocketPacket back = decoder.binary(new byte[] {20});
    assertThat(back.type()).isEqualTo(Type.EVENT);
    assertThat(back.id()).isEqualTo(3L);
    assertThat(back.data()).isEqualTo(data);
    assertThat(decoder.isReconstructing()).isFalse();
  }

  @Test
  void decodesBinaryAckFromTheSpec() throws Exception {
    assertThat(decoder.text("61-/admin,456[{\"_placeholder\":true,\"num\":0}]")).isNull();
    SocketPacket p = decoder.binary(new byte[] {1, 2, 3});
    assertThat(p.type()).isEqualTo(Type.ACK);
    assertThat(p.namespace()).isEqualTo("/admin");
    assertThat(p.id()).isEqualTo(456L);
    assertThat(p.data().get(0).binaryValue()).containsExactly(1, 2, 3);
  }

  @Test
  void packetsAfterABinaryPacketDecodeNormally() throws Exception {
    decoder.text("51-[\"a\",{\"_placeholder\":true,\"num\":0}]");
    decoder.binary(new byte[0]);
    assertThat(decode("2[\"b\"]").data()).isEqualTo(json("[\"b\"]"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "",
      "9",
      "x",
      "2",                      // an event needs a payload
      "2{}",                    // ... that is an array
      "2[]",                    // ... with a name
      "2[{}]",
      "2[\"connect\"]",         // reserved names
      "2[\"disconnect\",1]",
      "0[]",                    // CONNECT payload must be an object
      "0\"token\"",
      "1{}",                    // DISCONNECT has no payload
      "3[]",                    // ACK needs an id
      "31{}",                   // ... and an array
      "4",                      // CONNECT_ERROR needs a payload
      "4[1]",
      "2[\"a\"",                // broken JSON
      "2[\"a\"] trailing",
      "2[\"a\"][\"b\"]",
      "5-[\"a\"]",              // no attachment count
      "50-[\"a\"]",             // zero attachments
      "5x-[\"a\"]",
      "511-[\"a\"]",            // more than 10 attachments
      "51[\"a\"]",              // no dash
      "21234567890123456[\"a\"]", // absurd ack id
  })
  void rejectsInvalidPackets(String literal) {
    assertThatThrownBy(() -> decoder.text(literal)).isInstanceOf(ProtocolException.class);
  }

  @Test
  void rejectsABinaryFrameNobodyWaitsFor() {
    assertThatThrownBy(() -> decoder.binary(new byte[] {1}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("without a binary packet");
  }

  @Test
  void rejectsTextWhileAttachmentsAreMissing() throws Exception {
    decoder.text("52-[\"a\",{\"_placeholder\":true,\"num\":0},{\"_placeholder\":true,\"num\":1}]");
    decoder.binary(new byte[] {1});
    assertThatThrownBy(() -> decoder.text("2[\"b\"]"))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("waiting for 1");
  }

  @Test
  void rejectsAPlaceholderPointingPastTheAttachments() throws Exception {
    decoder.text("51-[\"a\",{\"_placeholder\":true,\"num\":1}]");
    assertThatThrownBy(() -> decoder.binary(new byte[] {1}))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("placeholder");
  }

  @Test
  void errorMessagesDoNotQuoteThePayload() {
    assertThatThrownBy(() -> decoder.text("0\"secret-token-123\""))
        .isInstanceOf(ProtocolException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
    assertThatThrownBy(() -> decoder.text("0{\"token\":secret-token-123}"))
        .isInstanceOf(ProtocolException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
  }

  @Test
  void anObjectThatOnlyLooksLikeAPlaceholderStaysJson() throws Exception {
    SocketPacket p = decode("2[\"a\",{\"_placeholder\":\"yes\",\"num\":0}]");
    assertThat(p.data().get(1).isObject()).isTrue();
  }

  @Test
  void toStringLeavesOutThePayload() throws Exception {
    SocketPacket p = decode("0{\"token\":\"secret\"}");
    assertThat(p.toString()).doesNotContain("secret").contains("CONNECT");
  }
}
