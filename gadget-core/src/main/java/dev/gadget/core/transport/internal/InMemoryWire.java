package dev.gadget.core.transport.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import dev.gadget.core.GadgetJson;
import java.util.ArrayList;
import java.util.List;

/**
 * What crossing the in-memory "wire" does to event arguments: each side gets its own deep copy,
 * a null argument arrives as JSON null, and raw JSON text ({@link GadgetJson#raw}) as the tree it
 * reads as, as they would after a real send.
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
      String raw = GadgetJson.rawText(a);
      out.add(a == null ? NullNode.getInstance() : raw != null ? parse(raw) : a.deepCopy());
    }
    return out;
  }

  private static JsonNode parse(String json) {
    try {
      return GadgetJson.mapper().readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("raw JSON argument that is not JSON: " + e.getMessage());
    }
  }
}
