package dev.gadget.transport.ws.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.transport.ws.WireSocket;
import dev.gadget.transport.ws.internal.FrameReader.Binary;
import dev.gadget.transport.ws.internal.FrameReader.Close;
import dev.gadget.transport.ws.internal.FrameReader.Frame;
import dev.gadget.transport.ws.internal.FrameReader.Ping;
import dev.gadget.transport.ws.internal.FrameReader.Pong;
import dev.gadget.transport.ws.internal.FrameReader.Text;
import dev.gadget.transport.ws.internal.FrameReader.Violation;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The strict RFC 6455 reader on literal client frames, split at every byte boundary. */
class FrameReaderTest {
  private static final byte[] MASK = {0x37, (byte) 0xfa, 0x21, 0x3d};

  /** A client frame: {@code b0} (FIN, RSV, opcode), masked with {@code mask} unless null. */
  static byte[] frame(int b0, byte[] payload, byte[] mask) {
    return WireSocket.encode(b0, payload, mask);
  }

  static byte[] frame(int b0, String payload) {
    return frame(b0, payload.getBytes(StandardCharsets.UTF_8), MASK);
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  static byte[] closePayload(int code, byte[] reason) {
    return concat(new byte[] {(byte) (code >>> 8), (byte) code}, reason);
  }

  private static List<Frame> readAll(FrameReader reader, byte[] bytes) {
    return reader.read(ByteBuffer.wrap(bytes));
  }

  /** Reads {@code bytes} in two chunks split at every position; every split reads the same. */
  private static List<Frame> readSplitEverywhere(int max, byte[] bytes) {
    List<Frame> whole = readAll(new FrameReader(max), bytes);
    for (int cut = 0; cut <= bytes.length; cut++) {
      FrameReader r = new FrameReader(max);
      List<Frame> got = new ArrayList<>(r.read(ByteBuffer.wrap(bytes, 0, cut)));
      got.addAll(r.read(ByteBuffer.wrap(bytes, cut, bytes.length - cut)));
      assertThat(describe(got)).as("split at %d", cut).isEqualTo(describe(whole));
    }
    return whole;
  }

  private static List<String> describe(List<Frame> frames) {
    return frames.stream().map(f -> {
      if (f instanceof Binary b) {
        return "Binary" + Arrays.toString(b.bytes());
      } else if (f instanceof Ping p) {
        return "Ping" + Arrays.toString(p.payload());
      } else if (f instanceof Pong p) {
        return "Pong" + Arrays.toString(p.payload());
      }
      return f.toString();
    }).toList();
  }

  private static Violation onlyViolation(List<Frame> frames) {
    assertThat(frames).hasSize(1);
    assertThat(frames.get(0)).isInstanceOf(Violation.class);
    return (Violation) frames.get(0);
  }

  @Test
  void unmasksEveryLengthAroundItsEightByteStepsWholeAndInFragments() {
    java.util.Random random = new java.util.Random(25);
    for (int n = 0; n <= 40; n++) {
      byte[] payload = new byte[n];
      random.nextBytes(payload);
      byte[] mask = new byte[4];
      random.nextBytes(mask);
      List<Frame> whole = readAll(new FrameReader(1 << 16), frame(0x82, payload, mask));
      assertThat(describe(whole)).as("length %d", n).containsExactly("Binary" + Arrays.toString(payload));
      int cut = n / 3; // the same bytes as a fragment and its continuation, each masked anew
      byte[] first = Arrays.copyOfRange(payload, 0, cut);
      byte[] rest = Arrays.copyOfRange(payload, cut, n);
      List<Frame> parts = readAll(new FrameReader(1 << 16),
          concat(frame(0x02, first, mask), frame(0x80, rest, new byte[] {9, 8, 7, 6})));
      assertThat(describe(parts)).as("fragmented at %d", cut)
          .containsExactly("Binary" + Arrays.toString(payload));
    }
  }

  @Test
  void readsTheRfcsMaskedHello() {
    byte[] rfc = {(byte) 0x81, (byte) 0x85, 0x37, (byte) 0xfa, 0x21, 0x3d, 0x7f, (byte) 0x9f,
        0x4d, 0x51, 0x58};
    assertThat(readSplitEverywhere(100, rfc)).containsExactly(new Text("Hello"));
  }

  @Test
  void assemblesFragmentsWithControlFramesBetween() {
    byte[] bytes = concat(
        frame(0x01, "4"),                       // TEXT, not FIN
        frame(0x89, "hi"),                      // PING between fragments
        frame(0x00, "2[\"a\""),                 // CONTINUATION
        frame(0x80, ",\"é\"]"),                 // CONTINUATION, FIN
        frame(0x82, new byte[] {1, 2, 3}, MASK), // BINARY
        frame(0x8A, ""));                       // PONG
    List<Frame> frames = readSplitEverywhere(100, bytes);
    assertThat(describe(frames)).containsExactly(
        "Ping[104, 105]", "Text[text=42[\"a\",\"é\"]]", "Binary[1, 2, 3]", "Pong[]");
  }

  @Test
  void readsLengthsOf16And64Bits() {
    String medium = "m".repeat(300);
    String large = "L".repeat(70_000);
    List<Frame> frames = readAll(new FrameReader(100_000),
        concat(frame(0x81, medium), frame(0x81, large)));
    assertThat(frames).containsExactly(new Text(medium), new Text(large));
  }

  @Test
  void refusesUnmaskedFrames() {
    Violation v = onlyViolation(readAll(new FrameReader(100),
        frame(0x81, "40".getBytes(StandardCharsets.UTF_8), null)));
    assertThat(v.closeCode()).isEqualTo(1002);
    assertThat(v.kind()).isEqualTo(PeerLog.Kind.INVALID_FRAME);
    assertThat(v.reason()).isEqualTo("frames from a client must be masked (RFC 6455, section 5.1)");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "C1:reserved bits set, but no extension was negotiated",
      "91:reserved bits set, but no extension was negotiated",
      "83:unknown opcode 3",
      "8F:unknown opcode 15",
      "09:a control frame must not be fragmented",
      "80:a continuation frame without a message to continue"})
  void refusesBrokenHeaders(String caseText) {
    int b0 = Integer.parseInt(caseText.substring(0, 2), 16);
    Violation v = onlyViolation(readAll(new FrameReader(100), frame(b0, "x")));
    assertThat(v.closeCode()).isEqualTo(1002);
    assertThat(v.reason()).isEqualTo(caseText.substring(3));
  }

  @Test
  void refusesLongControlFramesAndInterleavedMessages() {
    assertThat(onlyViolation(readAll(new FrameReader(1000), frame(0x89, "p".repeat(126)))).reason())
        .isEqualTo("a control frame carries at most 125 bytes");
    assertThat(onlyViolation(readAll(new FrameReader(1000),
        concat(frame(0x01, "4"), frame(0x81, "2")))).reason())
        .isEqualTo("a new message before the previous one was finished");
  }

  @Test
  void refusesAnOversizedMessageFromItsHeaderAlone() {
    // 0x81, masked, 64-bit length 2^31: nothing of the payload has arrived.
    byte[] header = {(byte) 0x81, (byte) 0xFF, 0, 0, 0, (byte) 0x80, 0, 0, 0, 0};
    Violation v = onlyViolation(readAll(new FrameReader(1000), header));
    assertThat(v.kind()).isEqualTo(PeerLog.Kind.TOO_LARGE);
    assertThat(v.closeCode()).isEqualTo(1009);
    assertThat(v.reason()).isEqualTo("message too large: the limit is 1000 bytes");

    byte[] negative = {(byte) 0x82, (byte) 0xFF, (byte) 0x80, 0, 0, 0, 0, 0, 0, 1};
    assertThat(onlyViolation(readAll(new FrameReader(1000), negative)).reason())
        .isEqualTo("a frame length over 2^63");
  }

  @Test
  void countsEveryFragmentAgainstTheLimit() {
    FrameReader r = new FrameReader(10);
    assertThat(readAll(r, concat(frame(0x01, "12345"), frame(0x00, "6789")))).isEmpty();
    Violation v = onlyViolation(readAll(r, frame(0x80, "ab")));
    assertThat(v.closeCode()).isEqualTo(1009);
    // exactly at the limit is fine
    assertThat(readAll(new FrameReader(10), concat(frame(0x01, "12345"), frame(0x80, "67890"))))
        .containsExactly(new Text("1234567890"));
  }

  @Test
  void refusesTextThatIsNotUtf8() {
    byte[] invalid = {'4', '2', (byte) 0xC3, (byte) 0x28};
    Violation v = onlyViolation(readAll(new FrameReader(100), frame(0x81, invalid, MASK)));
    assertThat(v.kind()).isEqualTo(PeerLog.Kind.INVALID_UTF8);
    assertThat(v.closeCode()).isEqualTo(1007);
    // a surrogate encoded in UTF-8 (CESU) and an overlong encoding are not UTF-8 either
    assertThat(onlyViolation(readAll(new FrameReader(100),
        frame(0x81, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, MASK))).closeCode())
        .isEqualTo(1007);
    assertThat(onlyViolation(readAll(new FrameReader(100),
        frame(0x81, new byte[] {(byte) 0xC0, (byte) 0xAF}, MASK))).closeCode()).isEqualTo(1007);
    // a character split across fragments is fine
    byte[] e = "é".getBytes(StandardCharsets.UTF_8);
    assertThat(readAll(new FrameReader(100), concat(frame(0x01, new byte[] {e[0]}, MASK),
        frame(0x80, new byte[] {e[1]}, MASK)))).containsExactly(new Text("é"));
  }

  @Test
  void readsCloseFramesAndChecksTheirCodeAndReason() {
    assertThat(readAll(new FrameReader(100), frame(0x88, new byte[0], MASK)))
        .containsExactly(new Close(FrameReader.NO_STATUS, ""));
    assertThat(readAll(new FrameReader(100),
        frame(0x88, closePayload(1001, "bye".getBytes(StandardCharsets.UTF_8)), MASK)))
        .containsExactly(new Close(1001, "bye"));
    assertThat(readAll(new FrameReader(100), frame(0x88, closePayload(4000, new byte[0]), MASK)))
        .containsExactly(new Close(4000, ""));
    for (int code : new int[] {0, 999, 1004, 1005, 1006, 1015, 2999, 5000, 65535}) {
      Violation v = onlyViolation(readAll(new FrameReader(100),
          frame(0x88, closePayload(code, new byte[0]), MASK)));
      assertThat(v.reason()).isEqualTo("close code " + code + " may not be sent");
    }
    assertThat(onlyViolation(readAll(new FrameReader(100), frame(0x88, new byte[] {3}, MASK)))
        .reason()).isEqualTo("a close frame with a 1-byte payload");
    Violation badReason = onlyViolation(readAll(new FrameReader(100),
        frame(0x88, closePayload(1000, new byte[] {(byte) 0xFF, (byte) 0xFE}), MASK)));
    assertThat(badReason.closeCode()).isEqualTo(1007);
    assertThat(badReason.reason()).isEqualTo("a close reason that is not valid UTF-8");
  }

  @Test
  void readsNothingAfterACloseOrAViolation() {
    FrameReader closed = new FrameReader(100);
    assertThat(readAll(closed, concat(frame(0x88, new byte[0], MASK), frame(0x81, "x"))))
        .containsExactly(new Close(FrameReader.NO_STATUS, ""));
    assertThat(readAll(closed, frame(0x81, "y"))).isEmpty();

    FrameReader broken = new FrameReader(100);
    List<Frame> frames = readAll(broken, concat(frame(0x81, "ok"),
        frame(0x81, "no".getBytes(StandardCharsets.UTF_8), null), frame(0x81, "never")));
    assertThat(frames).hasSize(2);
    assertThat(frames.get(0)).isEqualTo(new Text("ok"));
    assertThat(frames.get(1)).isInstanceOf(Violation.class);
    assertThat(readAll(broken, frame(0x81, "z"))).isEmpty();
    assertThat(broken.frames()).isEqualTo(2);
  }
}
