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
}
