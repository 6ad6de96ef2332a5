package dev.gadget.cluster.redis.internal.peer;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's link to one other node, on which it only writes: the events of the turns that
 * node follows, and which turns this node follows. A frame is written on the caller's thread
 * without blocking, or, within {@link #COMBINE_NANOS} of the last write, with the next ones by
 * the timer; what the socket does not take at once waits here, at most {@link #MAX_PENDING}
 * bytes and {@link #MAX_STALL_MILLIS} without progress; past either bound the link is closed
 * (the other node gets the events from Redis).
 */
final class PeerLink {
  private static final Logger log = LoggerFactory.getLogger(PeerLink.class);
  static final int MAX_PENDING = 8 << 20;
  static final long MAX_STALL_MILLIS = 5_000;
  private static final long RETRY_MILLIS = 1;
  /**
   * The least time between two writes: frames that come sooner are written together when it
   * ends (at full speed, one system call for many events; at a few thousand events a second
   * on a link, each frame at once).
   */
  static final long COMBINE_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

  final String peerId;
  /** Where the node was announced when this link was opened: {@code host:port}. */
  final String where;
  private final SocketChannel channel;
  private final ScheduledExecutorService timer;
  private final Consumer<PeerLink> closed;
  private final ArrayDeque<ByteBuffer> pending = new ArrayDeque<>();
  private long pendingBytes;
  private long stalledSince;
  private boolean flushing;
  private boolean open = true;
  private volatile long lastSent = System.nanoTime() - COMBINE_NANOS;

  private PeerLink(String peerId, String where, SocketChannel channel,
      ScheduledExecutorService timer, Consumer<PeerLink> closed) {
    this.peerId = peerId;
    this.where = where;
    this.channel = channel;
    this.timer = timer;
    this.closed = closed;
  }

  /**
   * Connects to node {@code peerId} at {@code address} and makes the handshake, each within
   * {@code timeoutMillis}.
   *
   * @throws IOException when it cannot be reached; {@link PeerException} when it fails the
   *     handshake
   */
  static PeerLink open(InetSocketAddress address, String where, String peerId,
      PeerHandshake handshake, int timeoutMillis, ScheduledExecutorService timer,
      Consumer<PeerLink> closed) throws IOException {
    SocketChannel channel = SocketChannel.open();
    try {
      channel.socket().connect(address, timeoutMillis);
      channel.socket().setSoTimeout(timeoutMillis);
      channel.socket().setTcpNoDelay(true);
      handshake.connect(new DataInputStream(channel.socket().getInputStream()),
          new DataOutputStream(new BufferedOutputStream(channel.socket().getOutputStream())),
          peerId);
      channel.configureBlocking(false);
      return new PeerLink(peerId, where, channel, timer, closed);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * Sends a frame (its own buffer); false when the link is closed. Never blocks. A frame is
   * written at once unless the link wrote less than {@link #COMBINE_NANOS} ago: then it waits
   * for the write that ends that gap, with the others that came meanwhile, in one system call.
   */
  synchronized boolean send(ByteBuffer frame) {
    if (!open) {
      return false;
    }
    if (pendingBytes + frame.remaining() > MAX_PENDING) {
      close("node " + peerId + " reads slower than this node sends: over "
          + (MAX_PENDING >> 20) + " MiB wait");
      return false;
    }
    if (pending.isEmpty()) {
      stalledSince = System.nanoTime(); // waiting from now, until the socket takes some
    }
    pending.add(frame);
    pendingBytes += frame.remaining();
    long wait = lastSent + COMBINE_NANOS - System.nanoTime();
    if (!flushing && wait <= 0) {
      flush();
    } else if (!flushing) {
      flushing = true;
      later(wait, TimeUnit.NANOSECONDS);
    }
    return open;
  }

  /** Sends a ping when nothing was sent for a second, so that the other node knows the link. */
  void pingIfIdle() {
    if (System.nanoTime() - lastSent > TimeUnit.SECONDS.toNanos(1)) {
      send(PeerFrames.ping());
    }
  }

  private void later(long delay, TimeUnit unit) {
    try {
      timer.schedule(this::flushLater, delay, unit);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      close("this node is closing");
    }
  }

  private synchronized void flushLater() {
    flushing = false;
    flush();
  }

  /** Writes what waits in one gathering write; what the socket did not take waits again. */
  private void flush() {
    if (!open || pending.isEmpty()) {
      return;
    }
    try {
      long written = channel.write(pending.toArray(new ByteBuffer[0]));
      long now = System.nanoTime();
      lastSent = now;
      pendingBytes -= written;
      while (!pending.isEmpty() && !pending.peek().hasRemaining()) {
        pending.poll();
      }
      if (written > 0) {
        stalledSince = now;
      }
      if (pending.isEmpty()) {
        return;
      }
      if (now - stalledSince > TimeUnit.MILLISECONDS.toNanos(MAX_STALL_MILLIS)) {
        close("node " + peerId + " read nothing for " + MAX_STALL_MILLIS / 1000 + " s");
        return;
      }
      flushing = true;
      later(RETRY_MILLIS, TimeUnit.MILLISECONDS);
    } catch (IOException e) {
      close("node " + peerId + " is gone: " + e.getMessage());
    }
  }

  synchronized boolean isOpen() {
    return open;
  }

  /** Closes the link, saying why at INFO; idempotent. */
  void close(String why) {
    synchronized (this) {
      if (!open) {
        return;
      }
      open = false;
      pending.clear();
      pendingBytes = 0;
    }
    log.info("link to {} closed: {} (its events come through Redis until it is back)", peerId,
        why);
    try {
      channel.close();
    } catch (IOException e) {
      log.debug("closing the link to {}: {}", peerId, e.getMessage());
    }
    closed.accept(this);
  }

  @Override
  public String toString() {
    return "PeerLink[to " + peerId + "]";
  }
}
