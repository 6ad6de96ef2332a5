package dev.gadget.transport.ws.internal;

import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.java_websocket.WebSocket;
import org.java_websocket.WebSocketImpl;

/**
 * Sees that every frame queued from a thread other than Java-WebSocket's selector leaves.
 *
 * <p>Java-WebSocket 1.6.0's server can strand a frame: its selector drains a connection's
 * {@code outQueue} ({@code SocketChannelIOHelper.batch}) and then clears the key's write
 * interest ({@code doWrite}: {@code key.interestOps(OP_READ)}), while a sender adds to the queue
 * and sets the write interest ({@code WebSocketImpl.write}, {@code onWriteDemand}). When the
 * sender's add and re-arm fall between the selector's last look at the queue and its clear, the
 * frame waits with nobody flagged to write it until something else is sent on that connection.
 * The window is widest right after a read: a key whose write readiness was reported once stays
 * in the selected set (doWrite never removes it), so each later read is followed by a doWrite on
 * an empty queue, racing the worker that answers what was just read.
 *
 * <p>The selector loop is private to the library, so this watch closes the race from outside:
 * each connection a frame was queued on is watched until nothing of it is seen waiting (its queue
 * empty, nothing left of a direct write: {@link Sockets#waitsToBeWritten}); one with something
 * waiting but no write interest is re-armed and its selector woken. A frame thus waits at
 * most about {@link #TICK_MILLIS}. Re-arming is always safe: a selector woken for a drained
 * queue only clears the interest again. The thread sleeps while nothing is watched.
 */
public final class WriteWatch implements AutoCloseable {
  /** How often watched connections are looked at while any is watched. */
  static final long TICK_MILLIS = 1;

  private final Set<WebSocketImpl> watched = ConcurrentHashMap.newKeySet();
  private final LongAdder rescued = new LongAdder();
  private final Thread thread;
  private volatile boolean running = true;

  public WriteWatch(String name) {
    thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Call after queuing frames on {@code ws} (any thread); cheap when it is already watched. */
  public void queued(WebSocket ws) {
    if (ws instanceof WebSocketImpl impl && watched.add(impl)) {
      LockSupport.unpark(thread);
    }
  }

  /** How many times a connection had frames queued and nobody flagged to write them. */
  public long rescued() {
    return rescued.sum();
  }

  private void run() {
    while (running) {
      if (watched.isEmpty()) {
        LockSupport.park(this);
      } else {
        LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
      }
      for (WebSocketImpl ws : watched) {
        look(ws);
      }
    }
  }

  private void look(WebSocketImpl ws) {
    SelectionKey key = ws.getSelectionKey();
    if (!Sockets.waitsToBeWritten(ws) || key == null || !key.isValid()) {
      watched.remove(ws);
      // A sender adds to the queue before it asks to be watched: seen here if that was just now.
      if (Sockets.waitsToBeWritten(ws) && key != null && key.isValid()) {
        watched.add(ws);
      }
      return;
    }
    try {
      if ((key.interestOps() & SelectionKey.OP_WRITE) == 0) {
        key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        key.selector().wakeup();
        rescued.increment();
      }
    } catch (CancelledKeyException e) {
      watched.remove(ws);
    }
  }

  @Override
  public void close() {
    running = false;
    watched.clear();
    LockSupport.unpark(thread);
  }
}
