package dev.gadget.core.store.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads a file one line at a time with the byte offset of each line, without decoding it: the
 * lines of a journal or snapshot. The last line may lack its newline (a write cut short).
 */
final class LineReader {
  /** No record is longer: a bound on the buffer for a damaged file without newlines. */
  static final int MAX_LINE = 256 << 20;

  private final InputStream in;
  private byte[] buf = new byte[1 << 16];
  private int start;
  private int end;
  private long offset;
  private boolean eof;

  /** Where the current line starts in the file. */
  long lineOffset;
  /** The current line is {@code bytes()[from, to)}, without its newline. */
  int from;
  int to;
  /** Whether the current line ended with a newline. */
  boolean terminated;

  LineReader(InputStream in) {
    this.in = in;
  }

  byte[] bytes() {
    return buf;
  }

  /** Moves to the next line; {@code false} at the end of the file. */
  boolean next() throws IOException {
    int scan = start;
    while (true) {
      for (int i = scan; i < end; i++) {
        if (buf[i] == '\n') {
          take(i, true);
          start = i + 1;
          return true;
        }
      }
      scan = end;
      if (eof) {
        if (start == end) {
          return false;
        }
        take(end, false);
        start = end;
        return true;
      }
      scan -= fill();
    }
  }

  /** Whether everything after the current line is NUL bytes (or nothing). */
  boolean restIsZeros() throws IOException {
    while (true) {
      for (int i = start; i < end; i++) {
        if (buf[i] != 0) {
          return false;
        }
      }
      offset += end - start;
      start = end;
      if (eof) {
        return true;
      }
      fill();
    }
  }

  private void take(int lineEnd, boolean newline) {
    lineOffset = offset;
    from = start;
    to = lineEnd;
    terminated = newline;
    offset += lineEnd - start + (newline ? 1 : 0);
  }

  /** Reads more; returns by how much the buffer's content moved left. */
  private int fill() throws IOException {
    int shift = start;
    if (start > 0) {
      System.arraycopy(buf, start, buf, 0, end - start);
      end -= start;
      start = 0;
    }
    if (end == buf.length) {
      if (buf.length >= MAX_LINE) {
        throw new IOException("a line longer than " + (MAX_LINE >> 20) + " MiB");
      }
      buf = Arrays.copyOf(buf, buf.length * 2);
    }
    int n = in.read(buf, end, buf.length - end);
    if (n < 0) {
      eof = true;
    } else {
      end += n;
    }
    return shift;
  }
}
