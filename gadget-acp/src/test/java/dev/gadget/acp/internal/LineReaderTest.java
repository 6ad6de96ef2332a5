package dev.gadget.acp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineReaderTest {
  /** A stream that hands out at most {@code step} bytes a read: chunk boundaries anywhere. */
  private static InputStream trickle(String s, int step) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    return new ByteArrayInputStream(bytes) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, step));
      }
    };
  }

  private static List<String> read(String s, int max, int step) throws IOException {
    LineReader r = new LineReader(trickle(s, step), max);
    List<String> out = new ArrayList<>();
    for (LineReader.Line l = r.next(); l != null; l = r.next()) {
      out.add(l.oversized() ? "OVERSIZED " + l.bytes() : l.text());
    }
    return out;
  }

  @Test
  void splitsOnNewlinesWhereverTheChunksEnd() throws IOException {
    String input = "{\"a\":1}\r\n\n  \n{\"b\":\"é\"}\n{\"c\":3}";
    for (int step = 1; step <= input.length(); step++) {
      assertThat(read(input, 100, step)).as("step " + step)
          .containsExactly("{\"a\":1}", "{\"b\":\"é\"}", "{\"c\":3}");
    }
  }

  @Test
  void aLineOverTheBoundIsReportedBySizeAndTheNextIsRead() throws IOException {
    String input = "12345\n" + "x".repeat(30) + "\n123456\n1234567\nok\n";
    for (int step : new int[] {1, 3, 7, 1000}) {
      assertThat(read(input, 6, step)).as("step " + step)
          .containsExactly("12345", "OVERSIZED 30", "123456", "OVERSIZED 7", "ok");
    }
  }

  @Test
  void aCarriageReturnDoesNotCountAgainstTheBound() throws IOException {
    assertThat(read("123456\r\n", 6, 2)).containsExactly("123456");
  }

  @Test
  void anEmptyStreamHasNoLines() throws IOException {
    assertThat(read("", 10, 1)).isEmpty();
    assertThat(read("\n\n", 10, 1)).isEmpty();
  }
}
