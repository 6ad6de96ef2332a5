package dev.gadget.transport.ws.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the WebSocket frames a client sends, strictly by RFC 6455: every frame masked, no
 * reserved bits (no extension is ever negotiated), known opcodes only, control frames whole and
 * at most 125 bytes, fragments in order, text that is valid UTF-8, close frames with a valid code
 * and a UTF-8 reason, and no message (all its fragments together) over {@code maxMessageBytes}.
 * The first frame that breaks a rule becomes a {@link Violation}, decided from the frame's
 * header alone when it can be (a huge length is refused before any of it is buffered); after a
 * violation or a close frame the reader ignores everything.
 *
 * <p>Pure: bytes in, frames out, no I/O. It holds at most one frame and one message being
 * assembled. Not thread-safe: one reader per connection, fed by that connection's thread.
 */
final class FrameReader {
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  /** The close code a close frame without a payload stands for. */
  static final int NO_STATUS = 1005;

  /** A frame or a whole message read from the client. */
  sealed interface Frame permits Text, Binary, Ping, Pong, Close, Violation {}

  record Text(String text) implements Frame {}

  record Binary(byte[] bytes) implements Frame {}

  record Ping(byte[] payload) implements Frame {}

  record Pong(byte[] payload) implements Frame {}

  /** A close frame: its code ({@link #NO_STATUS} when it had none) and reason. */
  record Close(int code, String reason) implements Frame {}

  /** A broken rule: the close code to answer with and a reason for people (under 124 bytes). */
  record Violation(PeerLog.Kind kind, int closeCode, String reason) implements Frame {}

  private static final int INITIAL_CAPACITY = 4096;
  private static final int KEEP_CAPACITY = 64 * 1024;
  private static final byte[] NONE = new byte[0];

  private final int maxMessageBytes;
  private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPORT)
      .onUnmappableCharacter(CodingErrorAction.REPORT);
  private byte[] in = new byte[INITIAL_CAPACITY];
  private int start;
  private int end;
  private byte[] message = NONE;
  private int messageLength;
  private int messageOpcode = -1;
  private boolean done;
  private volatile boolean stopped;
  private long frames;

  FrameReader(int maxMessageBytes) {
    if (maxMessageBytes < 1) {
      throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
    }
    this.maxMessageBytes = maxMessageBytes;
  }

  /**
   * Consumes all of {@code bytes} and returns the frames they complete: whole messages, control
   * frames, and at most one {@link Violation} or {@link Close}, which is then the last frame
   * this reader ever returns.
   */
  List<Frame> read(ByteBuffer bytes) {
    if (done || stopped) {
      release();
      bytes.position(bytes.limit());
      return List.of();
    }
    append(bytes);
    List<Frame> out = new ArrayList<>(2);
    while (!done) {
      int before = start;
      Frame f = next();
      if (f != null) {
        out.add(f);
      } else if (start == before) {
        break; // an incomplete frame: wait for more bytes
      }
    }
    if (done) {
      release();
    } else {
      compact();
    }
    return out;
  }

  /** How many frames (complete or refused) this reader has read. */
  long frames() {
    return frames;
  }

  /**
   * The connection is closing: the next {@link #read} reads nothing and drops the buffers. The
   * one method any thread may call.
   */
  void stop() {
    stopped = true;
  }

  private void release() {
    done = true;
    in = NONE;
    start = 0;
    end = 0;
    message = NONE;
    messageLength = 0;
  }

  /** The next frame; null for a fragment that completes nothing or when more bytes are needed. */
  private Frame next() {
    int available = end - start;
    if (available < 2) {
      return null;
    }
    int b0 = in[start] & 0xFF;
    int b1 = in[start + 1] & 0xFF;
    boolean fin = (b0 & 0x80) != 0;
    int opcode = b0 & 0x0F;
    int len7 = b1 & 0x7F;
    boolean control = opcode >= 8;
    if ((b0 & 0x70) != 0) {
      return violation("reserved bits set, but no extension was negotiated");
    }
    if (opcode > 2 && opcode < 8 || opcode > 10) {
      return violation("unknown opcode " + opcode);
    }
    if ((b1 & 0x80) == 0) {
      return violation("frames from a client must be masked (RFC 6455, section 5.1)");
    }
    if (control && !fin) {
      return violation("a control frame must not be fragmented");
    }
    if (control && len7 > 125) {
      return violation("a control frame carries at most 125 bytes");
    }
    int lengthBytes = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
    if (available < 2 + lengthBytes) {
      return null;
    }
    long length = len7;
    if (lengthBytes > 0) {
      length = 0;
      for (int i = 0; i < lengthBytes; i++) {
        length = (length << 8) | (in[start + 2 + i] & 0xFF);
      }
      if (length < 0) {
        return violation("a frame length over 2^63");
      }
    }
    if (!control) {
      if (opcode == 0 && messageOpcode < 0) {
        return violation("a continuation frame without a message to continue");
      }
      if (opcode != 0 && messageOpcode >= 0) {
        return violation("a new message before the previous one was finished");
      }
      if (length > maxMessageBytes - messageLength) {
        frames++;
        return fail(PeerLog.Kind.TOO_LARGE, 1009,
            "message too large: the limit is " + maxMessageBytes + " bytes");
      }
    }
    int headerLength = 2 + lengthBytes + 4;
    if (available < headerLength + length) {
      return null;
    }
    int n = (int) length;
    int payloadAt = start + headerLength;
    int maskAt = payloadAt - 4;
    start = payloadAt + n;
    frames++;
    if (control) {
      return control(opcode, unmask(maskAt, payloadAt, n, new byte[n], 0));
    }
    if (fin && messageOpcode < 0) {
      if (opcode == 2) {
        return complete(opcode, unmask(maskAt, payloadAt, n, new byte[n], 0), 0, n);
      }
      // a whole text message in one frame: unmasked where it lies (read once), decoded there
      return complete(opcode, unmask(maskAt, payloadAt, n, in, payloadAt), payloadAt, n);
    }
    if (messageOpcode < 0) {
      messageOpcode = opcode;
    }
    if (message.length < messageLength + n) {
      message = Arrays.copyOf(message, Math.max(messageLength + n,
          (int) Math.min(maxMessageBytes, Math.max(INITIAL_CAPACITY, 2L * message.length))));
    }
    unmask(maskAt, payloadAt, n, message, messageLength);
    messageLength += n;
    if (!fin) {
      return null;
    }
    int op = messageOpcode;
    byte[] whole = message;
    int wholeLength = messageLength;
    message = NONE;
    messageLength = 0;
    messageOpcode = -1;
    return complete(op, whole, 0, wholeLength);
  }

  /** Unmasks {@code n} payload bytes into {@code into}: eight at a time, then the rest. */
  private byte[] unmask(int maskAt, int from, int n, byte[] into, int at) {
    long mask4 = (int) INTS.get(in, maskAt) & 0xFFFFFFFFL;
    long mask8 = mask4 | mask4 << 32; // the mask repeats every 4 bytes; 8 is a multiple
    int i = 0;
    for (; i + 8 <= n; i += 8) {
      LONGS.set(into, at + i, (long) LONGS.get(in, from + i) ^ mask8);
    }
    for (; i < n; i++) {
      into[at + i] = (byte) (in[from + i] ^ in[maskAt + (i & 3)]);
    }
    return into;
  }

  /** The message of {@code length} bytes at {@code from} of {@code payload}. */
  private Frame complete(int opcode, byte[] payload, int from, int length) {
    if (opcode == 2) {
      return new Binary(from == 0 && payload.length == length ? payload
          : Arrays.copyOfRange(payload, from, from + length));
    }
    String text = decode(payload, from, length);
    if (text == null) {
      return fail(PeerLog.Kind.INVALID_UTF8, 1007, "a text message that is not valid UTF-8");
    }
    return new Text(text);
  }

  private Frame control(int opcode, byte[] payload) {
    if (opcode == 9) {
      return new Ping(payload);
    }
    if (opcode == 10) {
      return new Pong(payload);
    }
    if (payload.length == 0) {
      done = true;
      return new Close(NO_STATUS, "");
    }
    if (payload.length == 1) {
      return violation("a close frame with a 1-byte payload");
    }
    int code = ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
    if (!validCloseCode(code)) {
      return violation("close code " + code + " may not be sent");
    }
    String reason = decode(payload, 2, payload.length - 2);
    if (reason == null) {
      return fail(PeerLog.Kind.INVALID_UTF8, 1007, "a close reason that is not valid UTF-8");
    }
    done = true;
    return new Close(code, reason);
  }

  /** The codes RFC 6455 (7.4) and IANA let an endpoint send. */
  static boolean validCloseCode(int code) {
    return code >= 1000 && code <= 1003 || code >= 1007 && code <= 1014 || code >= 3000 && code <= 4999;
  }

  private String decode(byte[] bytes, int from, int length) {
    if (ascii(bytes, from, length)) { // most frames: no decoder, no CharBuffer
      return new String(bytes, from, length, StandardCharsets.ISO_8859_1);
    }
    try {
      return utf8.reset().decode(ByteBuffer.wrap(bytes, from, length)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static boolean ascii(byte[] bytes, int from, int length) {
    for (int i = from, end = from + length; i < end; i++) {
      if (bytes[i] < 0) {
        return false;
      }
    }
    return true;
  }

  private Violation violation(String reason) {
    frames++;
    return fail(PeerLog.Kind.INVALID_FRAME, 1002, reason);
  }

  private Violation fail(PeerLog.Kind kind, int code, String reason) {
    done = true;
    return new Violation(kind, code, reason);
  }

  private void append(ByteBuffer bytes) {
    int n = bytes.remaining();
    if (in.length - end < n) {
      int live = end - start;
      byte[] bigger = live + n <= in.length ? in : new byte[Math.max(live + n, 2 * in.length)];
      System.arraycopy(in, start, bigger, 0, live);
      in = bigger;
      start = 0;
      end = live;
    }
    bytes.get(in, end, n);
    end += n;
  }

  private void compact() {
    if (start == end) {
      start = 0;
      end = 0;
      if (in.length > KEEP_CAPACITY) {
        in = new byte[INITIAL_CAPACITY];
      }
    }
  }
}
