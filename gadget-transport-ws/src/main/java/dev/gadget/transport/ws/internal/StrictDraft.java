package dev.gadget.transport.ws.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.WebSocketListener;
import org.java_websocket.drafts.Draft;
import org.java_websocket.drafts.Draft_6455;
import org.java_websocket.enums.Opcode;
import org.java_websocket.enums.ReadyState;
import org.java_websocket.exceptions.InvalidHandshakeException;
import org.java_websocket.framing.CloseFrame;
import org.java_websocket.framing.Framedata;
import org.java_websocket.framing.PingFrame;
import org.java_websocket.framing.PongFrame;
import org.java_websocket.handshake.Handshakedata;

/**
 * The server's RFC 6455 draft: Java-WebSocket's {@link Draft_6455} for the handshake and for
 * what the server sends, with its own reading of what clients send ({@link FrameReader}). A
 * client that breaks the protocol is reported to the {@link Sink} and never reaches the
 * library's own error handling, which would log every such frame at ERROR with a stack trace.
 * It also refuses a request head over {@value #MAX_REQUEST_HEAD_BYTES} bytes, and counts the
 * bytes it hands the library to send, so that {@link Sockets#queuedBytes} knows what waits.
 * One instance per connection ({@link #copyInstance}), used by that connection's threads.
 */
final class StrictDraft extends Draft_6455 {
  /** The largest HTTP request head (request line and headers) a handshake may have. */
  static final int MAX_REQUEST_HEAD_BYTES = 16 * 1024;

  /** Where a draft reports a client's protocol violations. */
  interface Sink {
    /** {@code conn} broke a rule; the sink closes it. Called on the connection's thread. */
    void violation(WebSocketImpl conn, FrameReader.Violation violation);

    /**
     * A frame (the answer to the peer's close) was queued on {@code conn} from a reading
     * thread: the sink sees that it leaves ({@link WriteWatch}).
     */
    void queued(WebSocketImpl conn);
  }

  /** What every connection's draft of one server shares. */
  static final class Shared {
    final int maxMessageBytes;
    final LongAdder framesRead = new LongAdder();
    volatile Sink sink;

    Shared(int maxMessageBytes) {
      this.maxMessageBytes = maxMessageBytes;
    }
  }

  private final Shared shared;
  private final FrameReader reader;
  private final AtomicLong enqueued = new AtomicLong();

  StrictDraft(Shared shared) {
    super(Collections.emptyList(), shared.maxMessageBytes);
    this.shared = shared;
    this.reader = new FrameReader(shared.maxMessageBytes);
  }

  @Override
  public Draft copyInstance() {
    return new StrictDraft(shared);
  }

  /** Every byte this draft has handed the library to send: handshake response and frames. */
  long enqueuedBytes() {
    return enqueued.get();
  }

  @Override
  public Handshakedata translateHandshake(ByteBuffer buf) throws InvalidHandshakeException {
    // Frames may follow the head in the same buffer: only the head counts.
    if (buf.remaining() > MAX_REQUEST_HEAD_BYTES && headLength(buf) > MAX_REQUEST_HEAD_BYTES) {
      throw new InvalidHandshakeException("request head over " + MAX_REQUEST_HEAD_BYTES + " bytes");
    }
    return super.translateHandshake(buf);
  }

  /** The length of the HTTP head at {@code buf}'s position (through CRLF CRLF), or MAX_VALUE. */
  static int headLength(ByteBuffer buf) {
    int from = buf.position();
    int end = Math.min(buf.limit(), from + MAX_REQUEST_HEAD_BYTES + 4);
    for (int i = from; i + 3 < end; i++) {
      if (buf.get(i) == '\r' && buf.get(i + 1) == '\n' && buf.get(i + 2) == '\r'
          && buf.get(i + 3) == '\n') {
        return i + 4 - from;
      }
    }
    return Integer.MAX_VALUE;
  }

  @Override
  public List<ByteBuffer> createHandshake(Handshakedata handshakedata, boolean withcontent) {
    List<ByteBuffer> buffers = super.createHandshake(handshakedata, withcontent);
    for (ByteBuffer b : buffers) {
      enqueued.addAndGet(b.remaining());
    }
    return buffers;
  }

  /**
   * A whole server frame (final, unmasked) with {@code opcode} around {@code payload}, counted
   * as handed to the library like the frames it builds itself.
   */
  ByteBuffer frame(int opcode, byte[] payload) {
    int n = payload.length;
    int header = n <= 125 ? 2 : n <= 65535 ? 4 : 10;
    ByteBuffer frame = ByteBuffer.allocate(header + n);
    frame.put((byte) (0x80 | opcode));
    if (n <= 125) {
      frame.put((byte) n);
    } else if (n <= 65535) {
      frame.put((byte) 126).putShort((short) n);
    } else {
      frame.put((byte) 127).putLong(n);
    }
    frame.put(payload).flip();
    enqueued.addAndGet(frame.remaining());
    return frame;
  }

  @Override
  public ByteBuffer createBinaryFrame(Framedata framedata) {
    ByteBuffer frame = super.createBinaryFrame(framedata);
    enqueued.addAndGet(frame.remaining());
    return frame;
  }

  @Override
  public List<Framedata> translateFrame(ByteBuffer buffer) {
    long before = reader.frames();
    List<FrameReader.Frame> frames = reader.read(buffer);
    shared.framesRead.add(reader.frames() - before);
    List<Framedata> out = new ArrayList<>(frames.size());
    for (int i = 0; i < frames.size(); i++) {
      out.add(new Read(frames.get(i), i == frames.size() - 1));
    }
    return out;
  }

  /**
   * Hands a frame read by {@link #translateFrame} on. What its handlers send on this thread is
   * held in the thread's {@link Outbox} until the read's last frame is handled, then written.
   */
  @Override
  public void processFrame(WebSocketImpl conn, Framedata framedata) {
    if (!(framedata instanceof Read read)) {
      return;
    }
    Outbox.hold();
    boolean handled = false;
    try {
      handle(conn, read.frame);
      handled = true;
    } finally {
      if (read.last || !handled) {
        Outbox.release();
      }
    }
  }

  private void handle(WebSocketImpl conn, FrameReader.Frame frame) {
    if (conn.getReadyState() == ReadyState.CLOSED) {
      return;
    }
    WebSocketListener listener = conn.getWebSocketListener();
    if (frame instanceof FrameReader.Violation v) {
      Sink sink = shared.sink;
      if (sink != null) {
        sink.violation(conn, v);
      } else {
        conn.close(v.closeCode(), v.reason());
      }
    } else if (frame instanceof FrameReader.Close c) {
      if (conn.getReadyState() == ReadyState.CLOSING) {
        conn.closeConnection(c.code(), c.reason(), true);
      } else {
        // Answer with a plain 1000: echoing the peer's code and reason could build a close
        // frame the library itself refuses (1007 without a reason).
        conn.close(CloseFrame.NORMAL, "", true);
        Sink sink = shared.sink;
        if (sink != null) {
          sink.queued(conn);
        }
      }
    } else if (!conn.isOpen()) {
      return; // closing: what arrives now is dropped
    } else if (frame instanceof FrameReader.Text t) {
      listener.onWebsocketMessage(conn, t.text());
    } else if (frame instanceof FrameReader.Binary b) {
      listener.onWebsocketMessage(conn, ByteBuffer.wrap(b.bytes()));
    } else if (frame instanceof FrameReader.Ping p) {
      PingFrame ping = new PingFrame();
      ping.setPayload(ByteBuffer.wrap(p.payload()));
      listener.onWebsocketPing(conn, ping);
    } else if (frame instanceof FrameReader.Pong p) {
      PongFrame pong = new PongFrame();
      pong.setPayload(ByteBuffer.wrap(p.payload()));
      conn.updateLastPong();
      listener.onWebsocketPong(conn, pong);
    }
  }

  @Override
  public void reset() {
    // The library calls this when the connection closes, from whichever thread closes it: the
    // reader, which only its connection's thread may touch, just stops.
    super.reset();
    reader.stop();
  }

  /** A frame as {@link FrameReader} read it, passed through the library to processFrame. */
  private static final class Read implements Framedata {
    final FrameReader.Frame frame;
    /** Whether this is the last frame of its read. */
    final boolean last;

    Read(FrameReader.Frame frame, boolean last) {
      this.frame = frame;
      this.last = last;
    }

    @Override
    public boolean isFin() {
      return true;
    }

    @Override
    public boolean isRSV1() {
      return false;
    }

    @Override
    public boolean isRSV2() {
      return false;
    }

    @Override
    public boolean isRSV3() {
      return false;
    }

    @Override
    public boolean getTransfereMasked() {
      return true;
    }

    @Override
    public Opcode getOpcode() {
      return Opcode.CONTINUOUS;
    }

    @Override
    public ByteBuffer getPayloadData() {
      return ByteBuffer.allocate(0);
    }

    @Override
    public void append(Framedata nextframe) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String toString() {
      return frame.getClass().getSimpleName();
    }
  }
}
