package dev.gadget.core.llm.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class Utf8DecoderTest {
  private static final String MIXED = "a é ü ß – 世界 🌍🤔 \uD834\uDD1E z";

  private static String decodeAll(List<byte[]> pieces) {
    Utf8Decoder d = new Utf8Decoder();
    StringBuilder sb = new StringBuilder();
    for (byte[] p : pieces) {
      String s = d.decode(p, 0, p.length);
      assertThat(s).doesNotContain("\uFFFD");
      sb.append(s);
    }
    return sb.append(d.finish()).toString();
  }

  @Test
  void charactersOfOneToFourBytesSurviveEveryReadBoundary() {
    for (List<byte[]> pieces : Chunks.splittings(MIXED, 200)) {
      assertThat(decodeAll(pieces)).isEqualTo(MIXED);
    }
  }

  @Test
  void holdsBackAnIncompleteCharacterUntilItsLastByte() {
    byte[] globe = "🌍".getBytes(StandardCharsets.UTF_8);
    Utf8Decoder d = new Utf8Decoder();
    assertThat(d.decode(globe, 0, 1)).isEmpty();
    assertThat(d.decode(globe, 1, 1)).isEmpty();
    assertThat(d.decode(globe, 2, 1)).isEmpty();
    assertThat(d.pending()).isEqualTo(3);
    assertThat(d.decode(globe, 3, 1)).isEqualTo("🌍");
    assertThat(d.pending()).isZero();
  }

  @Test
  void malformedBytesBecomeReplacementCharactersAndDecodingGoesOn() {
    Utf8Decoder d = new Utf8Decoder();
    byte[] bad = {'a', (byte) 0xFF, 'b', (byte) 0x80, 'c'};
    assertThat(d.decode(bad, 0, bad.length)).isEqualTo("a\uFFFDb\uFFFDc");
    // a lead byte followed by a non-continuation byte in the next read
    assertThat(d.decode(new byte[] {(byte) 0xE4}, 0, 1)).isEmpty();
    assertThat(d.decode(new byte[] {'x'}, 0, 1)).isEqualTo("\uFFFDx");
  }

  @Test
  void anIncompleteCharacterAtTheEndBecomesOneReplacementCharacter() {
    byte[] cut = {'o', 'k', (byte) 0xF0, (byte) 0x9F};
    Utf8Decoder d = new Utf8Decoder();
    assertThat(d.decode(cut, 0, cut.length)).isEqualTo("ok");
    assertThat(d.finish()).isEqualTo("\uFFFD");
    assertThat(d.finish()).isEmpty();
  }

  @Test
  void decodesHeapAndDirectBuffersAndConsumesThem() {
    byte[] bytes = MIXED.getBytes(StandardCharsets.UTF_8);
    ByteBuffer direct = ByteBuffer.allocateDirect(bytes.length);
    direct.put(bytes).flip();
    Utf8Decoder d = new Utf8Decoder();
    assertThat(d.decode(direct) + d.finish()).isEqualTo(MIXED);
    assertThat(direct.hasRemaining()).isFalse();

    ByteBuffer heap = ByteBuffer.wrap(bytes, 3, bytes.length - 3).slice();
    assertThat(new Utf8Decoder().decode(heap)).isEqualTo(
        new String(bytes, 3, bytes.length - 3, StandardCharsets.UTF_8));
  }
}
