package dev.gadget.core.drone.internal;

import java.util.concurrent.TimeUnit;

/**
 * Bounds what one running tool's live output costs the wire: at most one {@code toolOutput}
 * event every {@link #INTERVAL_NANOS} (10 a second), each with at most {@link #MAX_CHUNK}
 * characters (16,000 a second), and {@link #MAX_TOTAL} characters per call in all. Output over
 * a chunk's room is left out with a note saying how much; after the total, one note says the
 * live output stops. The model's result is not touched (the tool bounds it itself). A pure
 * class: the caller passes the time and sends what {@link #take} returns. Not thread-safe.
 */
final class ToolOutputLimiter {
  /** The shortest time between two events of one call, but for the last. */
  static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** The most characters of output one event carries (notes aside). */
  static final int MAX_CHUNK = 1_600;
  /** The most characters of output streamed for one call (notes aside). */
  static final int MAX_TOTAL = 64_000;
  /** Where the live output ends when a call prints more than {@link #MAX_TOTAL}. */
  static final String STOPPED = "\n[… live output stops here; the tool's result keeps the head "
      + "and the tail …]\n";

  private final StringBuilder buffer = new StringBuilder();
  private long skipped;
  private long total;
  private boolean stopped;
  private boolean sentAny;
  private long lastSentNanos;

  /** Output the tool printed; what does not fit the next event is counted, not kept. */
  void add(String text) {
    if (stopped) {
      return;
    }
    int room = MAX_CHUNK - buffer.length();
    if (text.length() <= room) {
      buffer.append(text);
    } else {
      buffer.append(text, 0, Math.max(0, room));
      skipped += text.length() - Math.max(0, room);
    }
  }

  /** Whether output waits to be sent. */
  boolean pending() {
    return !stopped && (buffer.length() > 0 || skipped > 0);
  }

  /** Nanoseconds from {@code now} until an event may be sent (0: now). */
  long delay(long now) {
    return sentAny ? Math.max(0, lastSentNanos + INTERVAL_NANOS - now) : 0;
  }

  /**
   * The next event's text, or {@code null} when nothing waits or, unless {@code last}, the last
   * event was sent less than {@link #INTERVAL_NANOS} ago.
   */
  String take(long now, boolean last) {
    if (!pending() || (!last && delay(now) > 0)) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    long left = MAX_TOTAL - total;
    if (buffer.length() > left) {
      out.append(buffer, 0, (int) left).append(STOPPED);
      stopped = true;
      total = MAX_TOTAL;
    } else {
      out.append(buffer);
      total += buffer.length();
      if (skipped > 0) {
        out.append("\n[… ").append(skipped).append(" characters of output not shown live …]\n");
      }
    }
    buffer.setLength(0);
    skipped = 0;
    sentAny = true;
    lastSentNanos = now;
    return out.toString();
  }
}
