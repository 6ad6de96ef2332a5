package dev.gadget.core.transport;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** Handles one incoming event. */
@FunctionalInterface
public interface EventHandler {
  /**
   * Handles an event.
   *
   * @param args the event's arguments
   * @param ack sends the acknowledgement the peer asked for, or {@code null} when it asked for
   *     none
   */
  void handle(List<JsonNode> args, Ack ack);

  /**
   * Whether this handler never blocks (no I/O, no wait, no lock held for long). A transport may
   * then run it on the thread that read the event, when no earlier event of the connection is
   * still waiting for its handler, instead of handing it to another thread: the order of a
   * connection's events is kept either way. False unless made with {@link #nonBlocking}.
   */
  default boolean isNonBlocking() {
    return false;
  }

  /** {@code handler}, marked as one that never blocks (see {@link #isNonBlocking()}). */
  static EventHandler nonBlocking(EventHandler handler) {
    return new EventHandler() {
      @Override
      public void handle(List<JsonNode> args, Ack ack) {
        handler.handle(args, ack);
      }

      @Override
      public boolean isNonBlocking() {
        return true;
      }
    };
  }
}
