package dev.gadget.acp.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * Reads newline-delimited messages from a stream, each at most {@code maxBytes} long: a longer
 * one is skipped to its end without being kept, and reported by its size. A {@code \r} before the
 * {@code \n} is dropped; blank lines are skipped. Not thread-safe: one reader thread.
 */
public final class LineReader {
  /** One line: its text, or, when it was over the bound, {@code null} and its size. */
  public record Line(String text, long bytes) {
    /** Whether the line was over the bound (and so has no text). */
    public boolean oversized() {
      return text == null;
    }
  }

  private final InputStream in;
  private final int maxBytes;
  private final byte[] chunk = new byte[8192];
  private int pos;
  private int end;
  private byte[] line = new byte[1024];

  /** A reader of {@code in} whose lines are at most {@code maxBytes} long. */
  public LineReader(InputStream in, int maxBytes) {
    this.in = Objects.requireNonNull(in, "in");
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes < 1");
    }
    this.maxBytes = maxBytes;
  }

  /** The next non-blank line, or {@code null} at the end of the stream. */
  public Line next() throws IOException {
    while (true) {
      int length = 0;
      long total = 0;
      boolean any = false;
      while (true) {
        if (pos == end) {
          end = in.read(chunk);
          pos = 0;
          if (end <= 0) {
            end = 0;
            if (!any) {
              return null;
            }
            break; // a last line without its newline
          }
        }
        any = true;
        int nl = -1;
        for (int i = pos; i < end; i++) {
          if (chunk[i] == '\n') {
            nl = i;
            break;
          }
        }
        int stop = nl < 0 ? end : nl;
        int n = stop - pos;
        total += n;
        if (total <= maxBytes + 1L) { // one more for a '\r' before the newline
          if (length + n > line.length) {
            line = Arrays.copyOf(line, Math.max(line.length * 2, length + n));
          }
          System.arraycopy(chunk, pos, line, length, n);
          length += n;
        }
        pos = nl < 0 ? end : nl + 1;
        if (nl >= 0) {
          break;
        }
      }
      if (total <= maxBytes + 1L && length > 0 && line[length - 1] == '\r') {
        length--;
        total--;
      }
      if (total > maxBytes) {
        return new Line(null, total);
      }
      String text = new String(line, 0, length, StandardCharsets.UTF_8);
      if (!text.isBlank()) {
        return new Line(text, total);
      }
      if (!any) {
        return null;
      }
    }
  }
}
