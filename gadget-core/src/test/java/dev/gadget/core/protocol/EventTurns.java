package dev.gadget.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;

/** Which turn a page's event is of, for tests that sort a page's events by turn (test-jar). */
public final class EventTurns {
  private EventTurns() {}

  /** The turn's id: {@code turn._id} of a {@code turnStarted}, else the payload's {@code turnId}. */
  public static String turnId(String event, JsonNode payload) {
    return (Protocol.TURN_STARTED.equals(event) ? payload.path("turn").path("_id")
        : payload.path("turnId")).asText();
  }
}
