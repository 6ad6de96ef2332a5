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
 * without blocking; what the socket does not take at once waits here, at most {@link
 * #MAX_PENDING} bytes and {@link #MAX_STALL_MILLIS} without progress, and is written by the
 * timer; past either bound the link is closed (the other node gets the events from Redis).
 */
final class PeerLink {
  private static final Logger log = LoggerFactory.getLogger(PeerLink.class);
  static final int MAX_PENDING = 8 << 20;
  static final long MAX_STALL_MILLIS = 5_000;
  private static final long RETRY_MILLIS = 1;

  final String peerId;
  private final SocketChannel channel;
  private final ScheduledExecutorService timer;
  private final Consumer<PeerLink> closed;
  private final ArrayDeque<ByteBuffer> pending = new ArrayDeque<>();
  private long pendingBytes;
  private long stalledSince;
  private boolean flushing;
  private boolean open = true;
  private volatile long lastSent = System.nanoTime();

  private PeerLink(String peerId, SocketChannel channel, ScheduledExecutorService timer,
      Consumer<PeerLink> closed) {
    this.peerId = peerId;
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
  static PeerLink open(InetSocketAddress address, String peerId, PeerHandshake handshake,
      int timeoutMillis, ScheduledExecutorService timer, Consumer<PeerLink> closed)
      throws IOException {
    SocketChannel channel = SocketChannel.open();
    try {
      channel.socket().connect(address, timeoutMillis);
      channel.socket().setSoTimeout(timeoutMillis);
      channel.socket().setTcpNoDelay(true);
      handshake.connect(new DataInputStream(channel.socket().getInputStream()),
          new DataOutputStream(new BufferedOutputStream(channel.socket().getOutputStream())),
          peerId);
      channel.configureBlocking(false);
      return new PeerLink(peerId, channel, timer, closed);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** Sends a frame (its own buffer); false when the link is closed. Never blocks. */
  synchronized boolean send(ByteBuffer frame) {
    if (!open) {
      return false;
    }
    try {
      if (pending.isEmpty()) {
        channel.write(frame);
        lastSent = System.nanoTime();
        if (!frame.hasRemaining()) {
          return true;
        }
        stalledSince = System.nanoTime();
      }
      if (pendingBytes + frame.remaining() > MAX_PENDING) {
        close("node " + peerId + " reads slower than this node sends: over "
            + (MAX_PENDING >> 20) + " MiB wait");
        return false;
      }
      pending.add(frame);
      pendingBytes += frame.remaining();
      if (!flushing) {
        flushing = true;
        timer.schedule(this::flush, RETRY_MILLIS, TimeUnit.MILLISECONDS);
      }
      return true;
    } catch (IOException e) {
      close("node " + peerId + " is gone: " + e.getMessage());
      return false;
    }
  }

  /** Sends a ping when nothing was sent for a second, so that the other node knows the link. */
  void pingIfIdle() {
    if (System.nanoTime() - lastSent > TimeUnit.SECONDS.toNanos(1)) {
      send(PeerFrames.ping());
    }
  }

  private synchronized void flush() {
    flushing = false;
    if (!open) {
      return;
    }
    try {
      while (!pending.isEmpty()) {
        ByteBuffer b = pending.peek();
        int before = b.remaining();
        channel.write(b);
        pendingBytes -= before - b.remaining();
        if (b.remaining() < before) {
          stalledSince = System.nanoTime();
          lastSent = stalledSince;
        }
        if (b.hasRemaining()) {
          if (System.nanoTime() - stalledSince > TimeUnit.MILLISECONDS.toNanos(MAX_STALL_MILLIS)) {
            close("node " + peerId + " read nothing for " + MAX_STALL_MILLIS / 1000 + " s");
            return;
          }
          flushing = true;
          timer.schedule(this::flush, RETRY_MILLIS, TimeUnit.MILLISECONDS);
          return;
        }
        pending.poll();
      }
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
