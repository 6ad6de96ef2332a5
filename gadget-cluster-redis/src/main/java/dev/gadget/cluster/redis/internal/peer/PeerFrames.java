package dev.gadget.cluster.redis.internal.peer;

import dev.gadget.core.spi.Cluster;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The frames nodes push to each other after their handshake ({@link PeerHandshake};
 * docs/CLUSTER.md, "Pushed between nodes"): a 4-byte length of what follows, a type byte, then
 * the type's fields, each string as a 4-byte length and its UTF-8 bytes, each number 8 bytes,
 * big-endian.
 *
 * <ul>
 *   <li>{@code EVENT} (1): turn id, the number of the event its sender published before it in
 *       the turn (-1 none, {@link Long#MIN_VALUE} unknown), its number, its name, its payload.
 *   <li>{@code FOLLOW} (2) and {@code UNFOLLOW} (3): turn id; the sender's pages watch that
 *       turn (or no longer), so the receiver pushes its events there.
 *   <li>{@code PING} (4): nothing; sent every second on a link that had nothing else to send.
 * </ul>
 *
 * <p>A frame is at most {@link #MAX_FRAME} bytes: an event's payload is at most {@link
 * Cluster#MAX_MESSAGE_CHARS} characters, 3 bytes each at most.
 */
final class PeerFrames {
  static final byte EVENT = 1;
  static final byte FOLLOW = 2;
  static final byte UNFOLLOW = 3;
  static final byte PING = 4;
  /** The most bytes of a frame after its length. */
  static final int MAX_FRAME = 3 * Cluster.MAX_MESSAGE_CHARS + 4 * 1024;
  /** The most bytes of a turn id or an event name. */
  private static final int MAX_NAME = 1024;

  private PeerFrames() {}

  /** A frame received. */
  record Frame(byte type, String turnId, long previousSeq, long seq, String event, String json) {}

  static ByteBuffer event(String turnId, long previousSeq, long seq, String event, String json) {
    byte[] id = utf8(turnId);
    byte[] name = utf8(event);
    byte[] payload = utf8(json);
    ByteBuffer b = ByteBuffer.allocate(4 + 1 + 4 + id.length + 16 + 4 + name.length + 4
        + payload.length);
    b.putInt(b.capacity() - 4).put(EVENT);
    b.putInt(id.length).put(id).putLong(previousSeq).putLong(seq);
    b.putInt(name.length).put(name).putInt(payload.length).put(payload);
    return b.flip();
  }

  static ByteBuffer follow(byte type, String turnId) {
    byte[] id = utf8(turnId);
    ByteBuffer b = ByteBuffer.allocate(4 + 1 + 4 + id.length);
    b.putInt(b.capacity() - 4).put(type).putInt(id.length).put(id);
    return b.flip();
  }

  static ByteBuffer ping() {
    return ByteBuffer.allocate(5).putInt(1).put(PING).flip();
  }

  /**
   * The next frame; null at the end of the stream.
   *
   * @throws PeerException for a frame out of its bounds or of an unknown type
   */
  static Frame read(DataInputStream in) throws IOException {
    int length;
    try {
      length = in.readInt();
    } catch (EOFException e) {
      return null;
    }
    if (length < 1 || length > MAX_FRAME) {
      throw new PeerException("a frame of " + length + " bytes, outside 1 to " + MAX_FRAME);
    }
    byte[] body = new byte[length];
    in.readFully(body);
    ByteBuffer b = ByteBuffer.wrap(body);
    try {
      byte type = b.get();
      switch (type) {
        case EVENT:
          String turnId = string(b, MAX_NAME);
          long previous = b.getLong();
          long seq = b.getLong();
          String event = string(b, MAX_NAME);
          String json = string(b, MAX_FRAME);
          end(b);
          return new Frame(type, turnId, previous, seq, event, json);
        case FOLLOW:
        case UNFOLLOW:
          String id = string(b, MAX_NAME);
          end(b);
          return new Frame(type, id, 0, 0, null, null);
        case PING:
          end(b);
          return new Frame(type, null, 0, 0, null, null);
        default:
          throw new PeerException("a frame of unknown type " + type);
      }
    } catch (java.nio.BufferUnderflowException e) {
      throw new PeerException("a frame shorter than its fields");
    }
  }

  private static String string(ByteBuffer b, int max) {
    int n = b.getInt();
    if (n < 0 || n > max || n > b.remaining()) {
      throw new PeerException("a field of " + n + " bytes, outside 0 to "
          + Math.min(max, b.remaining()));
    }
    String s = new String(b.array(), b.position(), n, StandardCharsets.UTF_8);
    b.position(b.position() + n);
    return s;
  }

  private static void end(ByteBuffer b) {
    if (b.hasRemaining()) {
      throw new PeerException("a frame with " + b.remaining() + " bytes after its fields");
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
