package dev.gadget.transport.ws.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketAdapter;
import org.java_websocket.WebSocketImpl;
import org.java_websocket.WebSocketServerFactory;
import org.java_websocket.WrappedByteChannel;
import org.java_websocket.drafts.Draft;
import org.java_websocket.enums.ReadyState;
import org.java_websocket.framing.CloseFrame;

/**
 * How the server's TCP connections are made: each accepted socket gets a channel that counts
 * the bytes written to it (so that, with what {@link StrictDraft} counted as handed over, the
 * server knows how much waits unsent: {@link #queuedBytes}) and a handshake deadline: a
 * connection that has not completed its WebSocket handshake within {@code handshakeTimeout}
 * (nothing sent, a partial request, a refused request the peer never reads the answer to) is
 * closed, so half-open connections cannot pile up file descriptors.
 */
final class Sockets implements WebSocketServerFactory {
  /** The most frames one write takes (the one asked for and those queued behind it). */
  static final int GATHER = 64;
  /** Frames are gathered until they pass this many bytes. */
  static final long GATHER_BYTES = 256 * 1024;
  private final Duration handshakeTimeout;
  private final ScheduledExecutorService timer;
  private final PeerLog peerLog;
  private final Set<Counting> open = ConcurrentHashMap.newKeySet();

  Sockets(Duration handshakeTimeout, ScheduledExecutorService timer, PeerLog peerLog) {
    this.handshakeTimeout = handshakeTimeout;
    this.timer = timer;
    this.peerLog = peerLog;
  }

  @Override
  public WebSocketImpl createWebSocket(WebSocketAdapter a, Draft d) {
    return new WebSocketImpl(a, d);
  }

  @Override
  public WebSocketImpl createWebSocket(WebSocketAdapter a, List<Draft> drafts) {
    return new WebSocketImpl(a, drafts);
  }

  @Override
  public ByteChannel wrapChannel(SocketChannel channel, SelectionKey key) throws IOException {
    Counting counting = new Counting(channel, key, peerOf(channel.getRemoteAddress()));
    open.add(counting);
    if (key.attachment() instanceof WebSocketImpl ws) {
      try {
        counting.deadline = timer.schedule(() -> expire(ws, counting),
            handshakeTimeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        // The server is stopping; closeAll() closes this socket.
      }
    }
    return counting;
  }

  private void expire(WebSocketImpl ws, Counting channel) {
    if (ws.getReadyState() == ReadyState.NOT_YET_CONNECTED && channel.isOpen()) {
      peerLog.problem(channel.peer, PeerLog.Kind.HANDSHAKE_TIMEOUT,
          "closed a connection that completed no WebSocket handshake within "
              + handshakeTimeout.toMillis() + " ms");
      ws.closeConnection(CloseFrame.NEVER_CONNECTED, "handshake timeout");
    }
  }

  @Override
  public void close() {}

  /** How many accepted TCP connections are still open. */
  int openCount() {
    return open.size();
  }

  /** Closes every accepted socket still open (the server stopped; the library leaves some). */
  void closeAll() {
    for (Counting c : List.copyOf(open)) {
      try {
        c.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  /** The handshake completed: its deadline no longer applies. */
  static void handshakeDone(WebSocket ws) {
    if (ws instanceof WebSocketImpl impl && impl.getChannel() instanceof Counting c) {
      ScheduledFuture<?> d = c.deadline;
      if (d != null) {
        d.cancel(false);
      }
    }
  }

  /** The peer's address without its port, for {@link PeerLog}. */
  static String peer(WebSocket ws) {
    if (ws instanceof WebSocketImpl impl && impl.getChannel() instanceof Counting c) {
      return c.peer;
    }
    return "an unknown address";
  }

  /** Whether the TCP socket under {@code ws} is still open. */
  static boolean isOpen(WebSocket ws) {
    SocketChannel channel = socketOf(ws);
    return channel != null && channel.isOpen();
  }

  /** The TCP socket under {@code ws}, or null. */
  static SocketChannel socketOf(WebSocket ws) {
    if (ws instanceof WebSocketImpl impl && impl.getChannel() instanceof Counting c) {
      return c.channel;
    }
    return null;
  }

  /**
   * The bytes handed to the library for {@code ws} that are not written to its socket yet
   * (never less than the truth: a frame counts as soon as it is built).
   */
  static long queuedBytes(WebSocket ws) {
    if (ws instanceof WebSocketImpl impl && impl.getDraft() instanceof StrictDraft d
        && impl.getChannel() instanceof Counting c) {
      return Math.max(0, d.enqueuedBytes() - c.written.get());
    }
    return 0;
  }

  /** The bytes in {@code ws}'s own output queue, summed (tests; it walks the queue). */
  static long outQueueBytes(WebSocket ws) {
    long sum = 0;
    if (ws instanceof WebSocketImpl impl) {
      for (ByteBuffer b : impl.outQueue) {
        sum += b.remaining();
      }
    }
    return sum;
  }

  /** {@link #writeNow}: every frame was written. */
  static final int WRITTEN = 0;
  /** {@link #writeNow}: written in part; the socket's channel writes the rest first. */
  static final int LEFT = 1;
  /** {@link #writeNow}: something waits to be written before them: queue them behind it. */
  static final int QUEUE = 2;
  /** {@link #writeNow}: the socket refused them (reset or closed). */
  static final int FAILED = 3;

  /**
   * Writes {@code frames} to {@code ws}'s socket from the calling thread, in one system call,
   * when nothing of that connection waits to be written (its queue empty, nothing left of an
   * earlier direct write); what the socket does not take stays with its channel, which writes
   * it before anything else (the caller then asks for write readiness: {@link #LEFT}). The
   * frames are copied into {@code scratch} (native memory; null for none) when they fit. Only for
   * connections made by this factory; others get {@link #QUEUE}.
   */
  static int writeNow(WebSocketImpl ws, List<ByteBuffer> frames, ByteBuffer scratch) {
    return ws.getChannel() instanceof Counting c ? c.writeNow(ws, frames, scratch) : QUEUE;
  }

  /** Whether anything handed to {@code ws} waits to be written (its queue, a direct write's rest). */
  static boolean waitsToBeWritten(WebSocketImpl ws) {
    return !ws.outQueue.isEmpty() || ws.getChannel() instanceof Counting c && c.isNeedWrite();
  }

  /** The size of a frame the server sends (unmasked) with {@code payload} bytes. */
  static long frameBytes(long payload) {
    return payload + (payload <= 125 ? 2 : payload <= 65535 ? 4 : 10);
  }

  private static String peerOf(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      return inet.getAddress().getHostAddress();
    }
    return String.valueOf(address);
  }

  /**
   * An accepted socket that counts what is written to it, and writes the frames queued behind
   * the one the library asks it to write in the same system call. Senders may also write to it
   * directly ({@link #writeNow}); what such a write leaves is written before anything the
   * library asks for next (the library's {@code WrappedByteChannel} contract: {@code
   * isNeedWrite}/{@code writeMore} when its queue is empty). One lock orders the writers.
   */
  private final class Counting implements WrappedByteChannel {
    final SocketChannel channel;
    private final SelectionKey key;
    final String peer;
    final AtomicLong written = new AtomicLong();
    volatile ScheduledFuture<?> deadline;
    private final Object writeLock = new Object();
    /** What a direct write left, written before anything else (under writeLock). */
    private ByteBuffer[] rest;
    private volatile boolean hasRest;

    Counting(SocketChannel channel, SelectionKey key, String peer) {
      this.channel = channel;
      this.key = key;
      this.peer = peer;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return channel.read(dst);
    }

    /**
     * {@link Sockets#writeNow}, under the lock that orders this socket's writers: the frames
     * that fit {@code scratch} are copied into it and written a scratchful at a time, any others
     * in one gathering write; what the socket does not take is kept, in order, for the selector.
     */
    int writeNow(WebSocketImpl ws, List<ByteBuffer> frames, ByteBuffer scratch) {
      synchronized (writeLock) {
        if (hasRest || !ws.outQueue.isEmpty()) {
          return QUEUE;
        }
        try {
          int next = 0;
          while (scratch != null && next < frames.size()
              && frames.get(next).remaining() <= scratch.capacity()) {
            scratch.clear();
            while (next < frames.size() && frames.get(next).remaining() <= scratch.remaining()) {
              scratch.put(frames.get(next++));
            }
            scratch.flip();
            written.addAndGet(channel.write(scratch));
            if (scratch.hasRemaining()) {
              ByteBuffer left = ByteBuffer.allocate(scratch.remaining());
              left.put(scratch).flip();
              keep(left, frames.subList(next, frames.size()));
              return LEFT;
            }
          }
          if (next == frames.size()) {
            return WRITTEN;
          }
          ByteBuffer[] batch = frames.subList(next, frames.size()).toArray(new ByteBuffer[0]);
          written.addAndGet(batch.length == 1 ? channel.write(batch[0]) : channel.write(batch));
          if (!batch[batch.length - 1].hasRemaining()) {
            return WRITTEN;
          }
          keep(null, Arrays.asList(batch));
          return LEFT;
        } catch (IOException e) {
          return FAILED;
        }
      }
    }

    /** Keeps {@code first} (if any) and {@code frames} to be written before anything else. */
    private void keep(ByteBuffer first, List<ByteBuffer> frames) {
      List<ByteBuffer> kept = new ArrayList<>(frames.size() + 1);
      if (first != null) {
        kept.add(first);
      }
      kept.addAll(frames);
      rest = kept.toArray(new ByteBuffer[0]);
      hasRest = true;
    }

    /**
     * Writes {@code src} and, in the same call, up to {@link #GATHER} frames queued behind it
     * (after what a direct write left, if anything). The library's selector writes its queue a
     * frame per call ({@code SocketChannelIOHelper.batch}: write the head, drop it once empty,
     * go on with the next); a frame this call already sent is empty when the library gets to
     * it, and writing an empty frame costs nothing here. The selector writes its queue in
     * order; direct writes happen only while the queue is empty.
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
      synchronized (writeLock) {
        if (!src.hasRemaining() || !writeRest()) {
          return 0;
        }
        int before = src.remaining();
        ByteBuffer[] batch = gather(src);
        long n = batch == null ? channel.write(src) : channel.write(batch);
        written.addAndGet(n);
        return before - src.remaining();
      }
    }

    /** Writes what a direct write left; true when none is left. */
    private boolean writeRest() throws IOException {
      if (!hasRest) {
        return true;
      }
      written.addAndGet(channel.write(rest));
      if (rest[rest.length - 1].hasRemaining()) {
        return false;
      }
      rest = null;
      hasRest = false;
      return true;
    }

    @Override
    public boolean isNeedWrite() {
      return hasRest;
    }

    @Override
    public void writeMore() throws IOException {
      synchronized (writeLock) {
        writeRest();
      }
    }

    @Override
    public boolean isNeedRead() {
      return false;
    }

    @Override
    public int readMore(ByteBuffer dst) {
      return 0;
    }

    @Override
    public boolean isBlocking() {
      return false;
    }

    /** {@code src} and the frames queued after it, or null when none is. */
    private ByteBuffer[] gather(ByteBuffer src) {
      if (!(key.attachment() instanceof WebSocketImpl ws) || ws.outQueue.size() < 2) {
        return null; // nothing queued behind it: no walk of the queue (each step takes its lock)
      }
      List<ByteBuffer> batch = null;
      long bytes = src.remaining();
      boolean after = false;
      for (ByteBuffer b : ws.outQueue) {
        if (!after) {
          after = b == src;
        } else if (batch != null && (batch.size() == GATHER || bytes > GATHER_BYTES)) {
          break;
        } else {
          if (batch == null) {
            batch = new ArrayList<>();
            batch.add(src);
          }
          batch.add(b);
          bytes += b.remaining();
        }
      }
      return batch == null ? null : batch.toArray(new ByteBuffer[0]);
    }

    @Override
    public boolean isOpen() {
      return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
      if (open.remove(this)) {
        ScheduledFuture<?> d = deadline;
        if (d != null) {
          d.cancel(false);
        }
      }
      channel.close();
    }
  }
}
