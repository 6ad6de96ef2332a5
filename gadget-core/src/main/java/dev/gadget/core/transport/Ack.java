package dev.gadget.core.transport;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** Acknowledges one event. Only the first call sends; later calls are ignored. Thread-safe. */
@FunctionalInterface
public interface Ack {
  /** Sends the acknowledgement with {@code args}. */
  void send(List<JsonNode> args);
}
