package dev.gadget.core.llm.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Decodes UTF-8 incrementally: bytes arrive in arbitrary pieces, and a character split across two
 * pieces is held back until its last byte arrives, so no read boundary ever produces a
 * replacement character. Malformed input becomes U+FFFD. Not thread-safe; one per stream.
 */
public final class Utf8Decoder {
  private final byte[] carry = new byte[4];
  private int carryLen;
  private byte[] scratch = new byte[0];

  /** Decodes {@code buf} (consuming it), returning the complete characters so far. */
  public String decode(ByteBuffer buf) {
    int len = buf.remaining();
    if (buf.hasArray()) {
      String s = decode(buf.array(), buf.arrayOffset() + buf.position(), len);
      buf.position(buf.limit());
      return s;
    }
    if (scratch.length < len) {
      scratch = new byte[Math.max(len, 8192)];
    }
    buf.get(scratch, 0, len);
    return decode(scratch, 0, len);
  }

  /** Decodes {@code len} bytes of {@code b} from {@code off}, returning the complete characters. */
  public String decode(byte[] b, int off, int len) {
    int end = off + len;
    String head = "";
    if (carryLen > 0) {
      int need = sequenceLength(carry[0]) - carryLen;
      while (need > 0 && off < end && isContinuation(b[off])) {
        carry[carryLen++] = b[off++];
        need--;
      }
      if (need > 0 && off == end) {
        return ""; // still incomplete: wait for more bytes
      }
      // complete, or cut short by a non-continuation byte (malformed: decodes to U+FFFD)
      head = new String(carry, 0, carryLen, StandardCharsets.UTF_8);
      carryLen = 0;
    }
    int cut = completePrefixEnd(b, off, end);
    for (int i = cut; i < end; i++) {
      carry[carryLen++] = b[i];
    }
    if (cut == off) {
      return head;
    }
    String body = new String(b, off, cut - off, StandardCharsets.UTF_8);
    return head.isEmpty() ? body : head + body;
  }

  /** Ends the input: an incomplete trailing sequence becomes U+FFFD. */
  public String finish() {
    if (carryLen == 0) {
      return "";
    }
    String s = new String(carry, 0, carryLen, StandardCharsets.UTF_8);
    carryLen = 0;
    return s;
  }

  /** Bytes held back waiting for the rest of a character. */
  public int pending() {
    return carryLen;
  }

  /** Where the last complete character ends: bytes after it start an incomplete sequence. */
  private static int completePrefixEnd(byte[] b, int off, int end) {
    int limit = Math.max(off, end - 3);
    for (int i = end - 1; i >= limit; i--) {
      if (!isContinuation(b[i])) {
        int n = sequenceLength(b[i]);
        return end - i < n ? i : end;
      }
    }
    return end; // no lead byte in the last 3 bytes: complete, or malformed anyway
  }

  private static boolean isContinuation(byte b) {
    return (b & 0xC0) == 0x80;
  }

  private static int sequenceLength(byte lead) {
    int b = lead & 0xFF;
    if (b < 0x80) {
      return 1;
    } else if (b >= 0xF0 && b <= 0xF4) {
      return 4;
    } else if (b >= 0xE0) {
      return b <= 0xEF ? 3 : 1;
    } else if (b >= 0xC2) {
      return 2;
    }
    return 1; // stray continuation or invalid lead: decodes to U+FFFD on its own
  }
}
