package dev.gadget.core.drone.internal;

import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.transport.Connection;
import java.util.ArrayDeque;
import java.util.Iterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running turn's stream events as sent, kept so that they can be sent again: an event the
 * server had not taken when its link dropped or it died is not lost. The server says from where
 * ({@code resumeStream}); the drone sends {@code streamReplay} and the events from there, under
 * the same lock as new events, so they leave in the order of their seq. At most
 * {@link #MAX_EVENTS} events and about {@link #MAX_CHARS} characters are kept, the oldest dropped
 * first. Thread-safe.
 */
final class TurnOutbox {
  private static final Logger log = LoggerFactory.getLogger(TurnOutbox.class);

  /** The most events kept. */
  static final int MAX_EVENTS = 100_000;
  /** About the most characters of payload kept. */
  static final long MAX_CHARS = 16L << 20;
  /** What an event without text counts for. */
  private static final int SMALL = 256;

  private record Sent(long seq, String event, Object payload, long chars) {}

  private final ArrayDeque<Sent> sent = new ArrayDeque<>();
  private String turnId;
  private long chars;
  /** Whether events of this turn were dropped to stay within the bounds. */
  private boolean dropped;

  /** Keeps and sends one event of {@code turn}'s stream (a new turn forgets the last one's). */
  synchronized void send(Connection c, String turn, long seq, String event, Object payload) {
    if (!turn.equals(turnId)) {
      sent.clear();
      chars = 0;
      dropped = false;
      turnId = turn;
    }
    Sent s = new Sent(seq, event, payload, size(payload));
    sent.add(s);
    chars += s.chars;
    while (sent.size() > MAX_EVENTS || chars > MAX_CHARS) {
      chars -= sent.removeFirst().chars;
      dropped = true;
    }
    if (c != null) {
      c.emit(event, Protocol.args(payload));
    }
  }

  /** Sends the events {@code asked} for again, after a {@code streamReplay} saying from where. */
  synchronized void replay(Connection c, ResumePayloads.ResumeStream asked) {
    if (!asked.turnId().equals(turnId)) {
      log.debug("the server asked for the stream of turn {}, which this drone does not run",
          asked.turnId());
      return;
    }
    Iterator<Sent> from = sent.iterator();
    Sent first = null;
    boolean complete;
    if (asked.fromSeq() != null) {
      first = next(from);
      while (first != null && first.seq < asked.fromSeq()) {
        first = next(from);
      }
      complete = !dropped || (!sent.isEmpty() && sent.peekFirst().seq <= asked.fromSeq());
    } else if (asked.afterCallId() != null) {
      boolean found = false;
      while (!found && from.hasNext()) {
        Sent s = from.next();
        found = s.payload instanceof Payloads.ToolCallEvent call
            && asked.afterCallId().equals(call.call().callId());
      }
      complete = found;
      first = found ? next(from) : null;
      if (!found) {
        from = sent.iterator();
        first = next(from);
      }
    } else {
      first = next(from);
      complete = !dropped;
    }
    long fromSeq = first != null ? first.seq : sent.isEmpty() ? 0 : sent.peekLast().seq + 1;
    c.emit(Protocol.STREAM_REPLAY, Protocol.args(
        new ResumePayloads.StreamReplay(turnId, fromSeq, complete)));
    int count = 0;
    for (Sent s = first; s != null; s = next(from)) {
      c.emit(s.event, Protocol.args(s.payload));
      count++;
    }
    log.info("sent {} events of turn {} again from seq {}{}", count, turnId, fromSeq,
        complete ? "" : " (the ones before were no longer kept)");
  }

  private static Sent next(Iterator<Sent> it) {
    return it.hasNext() ? it.next() : null;
  }

  private static long size(Object payload) {
    if (payload instanceof Payloads.TextEvent t) {
      long n = SMALL + t.data().length();
      for (SignedReasoning r : t.reasoning()) {
        n += r.text().length() + length(r.signature()) + length(r.data());
      }
      return n;
    }
    if (payload instanceof Payloads.ToolOutput o) {
      return SMALL + o.data().length();
    }
    if (payload instanceof Payloads.ToolCallEvent e) {
      return SMALL + length(e.call().parameters()) + length(e.call().response());
    }
    return SMALL;
  }

  private static int length(String s) {
    return s == null ? 0 : s.length();
  }
}
