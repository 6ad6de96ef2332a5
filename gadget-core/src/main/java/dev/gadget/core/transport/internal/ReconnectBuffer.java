package dev.gadget.core.transport.internal;

import static dev.gadget.core.transport.internal.InMemoryNetwork.log;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The ordered buffer of an in-memory client connection: sends made while it is disconnected wait
 * here and go out in order once it is connected again, and new sends queue behind them until the
 * buffer is flushed. Bounded: once full, further sends are refused (with a warning, logged once).
 */
final class ReconnectBuffer {
  private final Deque<Runnable> sends = new ArrayDeque<>();
  private final int limit;
  private final AtomicBoolean warnedFull = new AtomicBoolean();
  /** Whether sends may go straight out: connected and the buffer flushed. Guarded by sends. */
  private boolean ready;

  ReconnectBuffer(int limit) {
    this.limit = limit;
  }

  /**
   * Runs {@code send} now or buffers it; {@code false} when the buffer is full or the connection
   * stopped. Both conditions are read under the buffer's lock.
   */
  boolean sendOrBuffer(Runnable send, BooleanSupplier connected, BooleanSupplier stopped) {
    synchronized (sends) {
      if (ready && sends.isEmpty() && connected.getAsBoolean()) {
        send.run();
        return true;
      }
      if (stopped.getAsBoolean()) {
        return false;
      }
      if (sends.size() >= limit) {
        if (warnedFull.compareAndSet(false, true)) {
          log.warn("client buffer full ({} events) while disconnected; refusing new emits", limit);
        }
        return false;
      }
      sends.add(send);
    }
    return true;
  }

  /** Sends what was buffered, in order; new sends queue behind it until it is done. */
  void flush() {
    while (true) {
      Runnable next;
      synchronized (sends) {
        next = sends.poll();
        if (next == null) {
          ready = true;
          return;
        }
      }
      next.run();
    }
  }

  /** The connection dropped: sends wait in the buffer until the next {@link #flush()}. */
  void hold() {
    synchronized (sends) {
      ready = false;
    }
  }
}
