package dev.gadget.transport.ws.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.framing.CloseFrame;

/**
 * How a server session's frames reach its socket. Each frame is built once
 * ({@link StrictDraft#frame}) and, within the session's queued-bytes bound, either held for the
 * sending thread's {@link Outbox} (a reading thread handling one read's frames) or written at
 * once. Written means: straight to the socket by the sending thread when nothing of this
 * connection waits to be written ({@link Sockets#writeNow}); otherwise, or for what the socket
 * did not take, through the library's queue and selector as {@code WebSocketImpl.write} does
 * ({@code outQueue.add}, then {@code onWriteDemand}), watched by {@link WriteWatch}. The
 * library's {@code sendFrame} is never used: it copies every frame and builds a string of it for
 * a trace log line even when tracing is off.
 */
final class SessionOutput implements Outbox.Held {
  /** {@link #write}: the frames went out or wait in order to. */
  static final long SENT = -1;
  /** {@link #write}: the session or its socket is closed; nothing was sent. */
  static final long CLOSED = -2;

  private static final int OPCODE_BINARY = 0x2;

  private final WebSocket ws;
  private final ServerEndpoint endpoint;
  private final AtomicBoolean sessionClosed;
  private final long maxQueuedBytes;
  private final long closeFrameBytes;
  private final Object lock = new Object();
  /** Frames built and counted but not yet written or queued (under lock). */
  private final List<ByteBuffer> held = new ArrayList<>();
  /** Whether the sending thread's outbox will flush {@link #held} (under lock). */
  private boolean deferred;

  SessionOutput(WebSocket ws, ServerEndpoint endpoint, AtomicBoolean sessionClosed,
      long maxQueuedBytes, long closeFrameBytes) {
    this.ws = ws;
    this.endpoint = endpoint;
    this.sessionClosed = sessionClosed;
    this.maxQueuedBytes = maxQueuedBytes;
    this.closeFrameBytes = closeFrameBytes;
  }

  /**
   * Sends {@code payloads} as frames (the first with {@code opcode}, the rest binary), unless
   * that would leave more than the bound waiting for this peer to read (room for a close frame
   * included; a message larger than the bound still goes out when nothing else waits). Returns
   * {@link #SENT}, {@link #CLOSED}, or the bytes already waiting when the bound refused them.
   */
  long write(List<byte[]> payloads, int opcode) {
    long bytes = 0;
    for (int i = 0; i < payloads.size(); i++) {
      bytes += Sockets.frameBytes(payloads.get(i).length);
    }
    boolean failed;
    synchronized (lock) {
      if (sessionClosed.get() || !ws.isOpen() || !(ws instanceof WebSocketImpl impl)
          || !(impl.getDraft() instanceof StrictDraft draft)) {
        return CLOSED;
      }
      long queued = Sockets.queuedBytes(ws); // held frames included: counted when built
      if (queued != 0 && queued + bytes + closeFrameBytes > maxQueuedBytes) {
        return queued;
      }
      for (int i = 0; i < payloads.size(); i++) {
        held.add(draft.frame(i == 0 ? opcode : OPCODE_BINARY, payloads.get(i)));
      }
      if (Outbox.defer(this, deferred)) {
        deferred = true;
        return SENT;
      }
      failed = flushLocked(impl, null);
    }
    if (failed) {
      dropConnection();
    }
    return SENT;
  }

  /**
   * Writes the frames held for this session now: when the outbox releases them, and before the
   * session's close frame (its last frames go first).
   */
  @Override
  public void flushHeld(ByteBuffer scratch) {
    boolean failed;
    synchronized (lock) {
      deferred = false;
      failed = ws instanceof WebSocketImpl impl && flushLocked(impl, scratch);
    }
    if (failed) {
      dropConnection();
    }
  }

  /** Writes or queues the held frames, in order; true when the socket failed. */
  private boolean flushLocked(WebSocketImpl impl, ByteBuffer scratch) {
    if (held.isEmpty()) {
      return false;
    }
    int outcome = Sockets.writeNow(impl, held, scratch);
    if (outcome == Sockets.QUEUE) {
      impl.outQueue.addAll(held);
    }
    held.clear();
    if (outcome == Sockets.QUEUE || outcome == Sockets.LEFT) {
      endpoint.onWriteDemand(impl);
      endpoint.writeWatch().queued(ws);
    }
    return outcome == Sockets.FAILED; // what was not written never will be
  }

  /**
   * The socket refused a write (reset, closed): the connection ends as on a failed read, on the
   * endpoint's timer thread: the sender may hold its application's locks, and closing calls the
   * application back.
   */
  private void dropConnection() {
    try {
      endpoint.timer().execute(() -> {
        if (!ws.isClosed()) {
          ws.closeConnection(CloseFrame.ABNORMAL_CLOSE, "write failed");
        }
      });
    } catch (RejectedExecutionException e) {
      // the server is stopping: it closes every connection
    }
  }
}
