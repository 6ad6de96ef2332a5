package dev.gadget.core.server.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * A running turn's events a node keeps (to relay them again after a Redis outage, or for a page
 * that starts watching a turn another node runs), held as text in large chunks rather than as
 * an object or three per event. Such events live as long as their turn, seconds to an hour: as
 * objects, every young collection copied each of them (at 21,000 events a second, 20 to 30 MB a
 * collection, 30 ms pauses on two cores). The chunks of {@link #CHUNK_CHARS} go back to a
 * shared pool when their events are forgotten ({@link #clear}), so once warm the events are
 * copied into arrays that have long left the young generation: a young collection copies
 * nothing of them. Not thread-safe: its owner guards it.
 */
final class KeptEvents {
  /** The characters of one chunk; a longer event gets a chunk of its own length. */
  static final int CHUNK_CHARS = 32 * 1024;
  /** The first chunk of a turn's events. */
  static final int FIRST_CHUNK_CHARS = 1024;
  /** The most chunks the pool keeps for reuse: 32 MB. */
  static final int MAX_POOLED = 512;
  private static final ArrayBlockingQueue<char[]> POOL = new ArrayBlockingQueue<>(MAX_POOLED);
  /** Per event: its chunk, its start there, and the lengths of its feed, name and JSON. */
  private static final int FIELDS = 5;

  private final List<char[]> chunks = new ArrayList<>();
  /** The characters used of the last chunk. */
  private int used;
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
    char[] chunk = chunks.isEmpty() ? null : chunks.get(chunks.size() - 1);
    if (chunk == null || used + need > chunk.length) {
      chunk = next(chunk == null ? 0 : chunk.length, need);
      chunks.add(chunk);
      used = 0;
    }
    if (size == numbers.length) {
      numbers = Arrays.copyOf(numbers, size * 2);
      at = Arrays.copyOf(at, size * 2 * FIELDS);
    }
    int i = size * FIELDS;
    numbers[size] = number;
    at[i] = chunks.size() - 1;
    at[i + 1] = used;
    at[i + 2] = feedLength;
    at[i + 3] = event.length();
    at[i + 4] = json.length();
    if (feed != null) {
      used = put(feed, chunk, used);
    }
    used = put(json, chunk, put(event, chunk, used));
    size++;
  }

  private static int put(String s, char[] chunk, int at) {
    s.getChars(0, s.length(), chunk, at);
    return at + s.length();
  }

  /**
   * A turn's first chunks are small and double (1 K characters, then 2 K, up to {@link
   * #CHUNK_CHARS}, which come from the pool): a node relaying a thousand short turns keeps a
   * few kilobytes of each, not 64 KB.
   */
  private static char[] next(int last, int need) {
    if (need > CHUNK_CHARS) {
      return new char[need];
    }
    int size = Math.max(FIRST_CHUNK_CHARS, Math.min(CHUNK_CHARS, last * 2));
    return size >= CHUNK_CHARS ? take() : new char[Math.max(size, need)];
  }

  private static char[] take() {
    char[] pooled = POOL.poll();
    return pooled != null ? pooled : new char[CHUNK_CHARS];
  }

  /** Forgets every event kept. */
  void clear() {
    for (char[] chunk : chunks) {
      if (chunk.length == CHUNK_CHARS) {
        POOL.offer(chunk); // dropped when the pool is full
      }
    }
    chunks.clear();
    used = 0;
    numbers = new long[16];
    at = new int[16 * FIELDS];
    size = 0;
  }

  /** Gives every event kept, in the order they were added. */
  void forEach(Visitor visitor) {
    for (int n = 0; n < size; n++) {
      int i = n * FIELDS;
      char[] chunk = chunks.get(at[i]);
      int start = at[i + 1];
      String feed = null;
      if (at[i + 2] >= 0) {
        feed = new String(chunk, start, at[i + 2]);
        start += at[i + 2];
      }
      String event = new String(chunk, start, at[i + 3]);
      start += at[i + 3];
      visitor.accept(numbers[n], feed, event, new String(chunk, start, at[i + 4]));
    }
  }
}
