package dev.gadget.core.server.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A running turn's events a node keeps (to relay them again after a Redis outage, or for a page
 * that starts watching a turn another node runs), held as text in large chunks rather than as
 * an object or three per event. Such events live as long as their turn, seconds to an hour: as
 * objects, every young collection copied each of them (at 21,000 events a second, 20 to 30 MB a
 * collection, 30 ms pauses on two cores); a few arrays of 32 K characters cost it next to
 * nothing. Not thread-safe: its owner guards it.
 */
final class KeptEvents {
  /** The characters of one chunk; a longer event gets a chunk of its own length. */
  static final int CHUNK_CHARS = 32 * 1024;
  /** Per event: its chunk, its start there, and the lengths of its feed, name and JSON. */
  private static final int FIELDS = 5;

  private final List<StringBuilder> chunks = new ArrayList<>();
  private long[] numbers = new long[16];
  private int[] at = new int[16 * FIELDS];
  private int size;

  /** What {@link #forEach} gives: an event as it was added. */
  interface Visitor {
    void accept(long number, String feed, String event, String json);
  }

  int size() {
    return size;
  }

  /**
   * Keeps an event.
   *
   * @param feed the feed it goes to, or null when its owner knows that
   */
  void add(long number, String feed, String event, String json) {
    int feedLength = feed == null ? -1 : feed.length();
    int need = Math.max(0, feedLength) + event.length() + json.length();
    StringBuilder chunk = chunks.isEmpty() ? null : chunks.get(chunks.size() - 1);
    if (chunk == null || (chunk.length() > 0 && chunk.length() + need > CHUNK_CHARS)) {
      chunk = new StringBuilder(Math.max(CHUNK_CHARS, need));
      chunks.add(chunk);
    }
    if (size == numbers.length) {
      numbers = Arrays.copyOf(numbers, size * 2);
      at = Arrays.copyOf(at, size * 2 * FIELDS);
    }
    int i = size * FIELDS;
    numbers[size] = number;
    at[i] = chunks.size() - 1;
    at[i + 1] = chunk.length();
    at[i + 2] = feedLength;
    at[i + 3] = event.length();
    at[i + 4] = json.length();
    if (feed != null) {
      chunk.append(feed);
    }
    chunk.append(event).append(json);
    size++;
  }

  /** Forgets every event kept. */
  void clear() {
    chunks.clear();
    numbers = new long[16];
    at = new int[16 * FIELDS];
    size = 0;
  }

  /** Gives every event kept, in the order they were added. */
  void forEach(Visitor visitor) {
    for (int n = 0; n < size; n++) {
      int i = n * FIELDS;
      StringBuilder chunk = chunks.get(at[i]);
      int start = at[i + 1];
      String feed = null;
      if (at[i + 2] >= 0) {
        feed = chunk.substring(start, start + at[i + 2]);
        start += at[i + 2];
      }
      String event = chunk.substring(start, start + at[i + 3]);
      start += at[i + 3];
      visitor.accept(numbers[n], feed, event, chunk.substring(start, start + at[i + 4]));
    }
  }
}
