package dev.gadget.core.store.internal;

import dev.gadget.core.model.ChatTurn;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The finished turns read or written last, by where they are kept, least recently used first
 * out once their records' bytes (times two: a turn's heap is about twice its JSON) pass the
 * bound. Keyed by place, not by id, so a turn read before it changed is never served after: a
 * changed turn has a new place. Thread-safe.
 */
final class TurnCache {
  private final long maxBytes;
  private final LinkedHashMap<Home, ChatTurn> turns = new LinkedHashMap<>(256, 0.75f, true);
  private long bytes;

  /** A cache of at most {@code maxBytes} (0: none). */
  TurnCache(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  synchronized ChatTurn get(Home home) {
    return turns.get(home);
  }

  synchronized void put(Home home, ChatTurn turn) {
    long cost = cost(home);
    if (cost > maxBytes / 4) {
      return; // one huge turn would push out everything else
    }
    if (turns.put(home, turn) == null) {
      bytes += cost;
    }
    Iterator<Map.Entry<Home, ChatTurn>> oldest = turns.entrySet().iterator();
    while (bytes > maxBytes && oldest.hasNext()) {
      bytes -= cost(oldest.next().getKey());
      oldest.remove();
    }
  }

  /** Drops the turns kept in journal {@code number} (deleted). */
  synchronized void dropJournal(int number) {
    turns.entrySet().removeIf(e -> {
      if (e.getKey().journal() == number) {
        bytes -= cost(e.getKey());
        return true;
      }
      return false;
    });
  }

  private static long cost(Home h) {
    return 2L * h.length();
  }
}
