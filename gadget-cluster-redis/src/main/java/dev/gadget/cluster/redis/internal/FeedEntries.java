package dev.gadget.cluster.redis.internal;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.Cluster.FeedAppend;
import dev.gadget.core.spi.Cluster.FeedEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How a feed's events become stream entries and back (pure, no I/O). One entry holds a run of
 * one feed's events with growing numbers; its id is its last event's ({@link Keys#feedId}), so
 * Redis refuses an entry whose last event is not above the feed's last, and a reader from
 * {@code afterSeq} reads the entries with ids above it and drops the events at or below what
 * it already has. Each event is one field and value of the entry: the field is
 * {@code "<seq> <event>"}, the value the payload. An entry holds at most {@link #MAX_EVENTS}
 * events and at most {@link Cluster#MAX_MESSAGE_CHARS} characters of fields and payloads, but
 * for a lone event, which is itself within that bound and has a field of its own.
 */
public final class FeedEntries {
  /** The most event names shared ({@link #name}); a feed has a handful. */
  private static final int MAX_NAMES = 256;
  private static final Map<String, String> NAMES = new ConcurrentHashMap<>();

  /** The most events of one entry. */
  public static final int MAX_EVENTS = 512;

  private FeedEntries() {}

  /**
   * One entry to add.
   *
   * @param lastSeq the seq of its last event: its id
   * @param from the index in the feed's run of its first event
   * @param to the index after its last event
   * @param body field, value, field, value...: its events in order
   */
  public record Entry(long lastSeq, int from, int to, Object[] body) {}

  /**
   * Splits {@code run}, one feed's events with strictly growing numbers, into entries within
   * the bounds, in order.
   */
  public static List<Entry> pack(List<FeedAppend> run) {
    List<Entry> entries = new ArrayList<>();
    int from = 0;
    while (from < run.size()) {
      int to = from;
      long chars = 0;
      List<Object> body = new ArrayList<>();
      while (to < run.size() && to - from < MAX_EVENTS) {
        FeedAppend a = run.get(to);
        String field = a.seq() + " " + a.event();
        long size = field.length() + (long) a.json().length();
        if (to > from && chars + size > Cluster.MAX_MESSAGE_CHARS) {
          break;
        }
        chars += size;
        body.add(field);
        body.add(a.json());
        to++;
      }
      entries.add(new Entry(run.get(to - 1).seq(), from, to, body.toArray()));
      from = to;
    }
    return entries;
  }

  /**
   * The events of an entry's {@code body} numbered above {@code afterSeq}, in order. A field
   * that is not {@code "<seq> <event>"} is skipped (an entry written by something else).
   */
  public static List<FeedEvent> unpack(Map<String, String> body, long afterSeq) {
    List<FeedEvent> events = new ArrayList<>(body.size());
    for (Map.Entry<String, String> f : body.entrySet()) {
      String field = f.getKey();
      int space = field.indexOf(' ');
      if (space <= 0) {
        continue;
      }
      long seq;
      try {
        seq = Long.parseLong(field, 0, space, 10);
      } catch (NumberFormatException e) {
        continue;
      }
      if (seq > afterSeq) {
        events.add(new FeedEvent(seq, name(field.substring(space + 1)),
            f.getValue() == null ? "null" : f.getValue()));
      }
    }
    // a body read back keeps the fields' order in practice; sorting costs little and makes
    // the order not depend on the client's map
    for (int i = 1; i < events.size(); i++) {
      if (events.get(i).seq() < events.get(i - 1).seq()) {
        events.sort((x, y) -> Long.compare(x.seq(), y.seq()));
        break;
      }
    }
    return events;
  }

  /**
   * One shared string per event name: a node keeps the events of the turns it relays while they
   * run (for pages that start watching), and each kept its own copy of a name like "token".
   */
  static String name(String event) {
    String shared = NAMES.get(event);
    if (shared != null) {
      return shared;
    }
    if (NAMES.size() >= MAX_NAMES) {
      return event;
    }
    String was = NAMES.putIfAbsent(event, event);
    return was == null ? event : was;
  }
}
