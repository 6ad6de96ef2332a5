package dev.gadget.core.transport.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What crossing the in-memory "wire" does to event arguments: each side gets its own deep copy,
 * and a null argument arrives as JSON null, as it would after a real send.
 */
final class InMemoryWire {
  private InMemoryWire() {}

  /** A deep copy of {@code args}; an empty list for null. */
  static List<JsonNode> copy(List<JsonNode> args) {
    if (args == null) {
      return List.of();
    }
    List<JsonNode> out = new ArrayList<>(args.size());
    for (JsonNode a : args) {
      out.add(a == null ? NullNode.getInstance() : a.deepCopy());
    }
    return out;
  }
}
