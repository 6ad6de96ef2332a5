package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * An object read from a packet's text by {@link JsonTree} that remembers that text, so a server
 * relaying it to other connections writes the text again instead of serializing the tree: a
 * stream event is read once per token and sent on to every page watching. Only small objects of
 * plain values are sourced (strings, integers, booleans, nulls; no nested object or array, no
 * repeated name), so a value cannot change inside the object.
 *
 * <p>It is an ordinary {@link ObjectNode} to everyone else, and may be changed like one: before
 * its text is used, {@link #unchanged} checks that it still holds the very names and values it
 * was read with, in order; if not, it is written from the tree like any other node.
 */
final class SourcedObject extends ObjectNode {
  private static final long serialVersionUID = 1L;
  /** Objects with more fields are not sourced. */
  static final int MAX_FIELDS = 8;
  /** Packets longer than this are not kept for their objects' text. */
  static final int MAX_SOURCE = 4_096;

  private final transient String source;
  private final transient int start;
  private final transient int end;
  /** The names and values read, alternating. */
  private final transient Object[] read;
  private final transient int fields;

  SourcedObject(JsonNodeFactory nodes, Map<String, JsonNode> children, String source, int start,
      int end, Object[] read, int fields) {
    super(nodes, children);
    this.source = source;
    this.start = start;
    this.end = end;
    this.read = read;
    this.fields = fields;
  }

  /** Whether it holds exactly what it was read with: its text is then its JSON. */
  boolean unchanged() {
    if (_children.size() != fields) {
      return false;
    }
    int k = 0;
    for (Map.Entry<String, JsonNode> e : _children.entrySet()) {
      if (e.getKey() != read[k] || e.getValue() != read[k + 1]) {
        return false;
      }
      k += 2;
    }
    return true;
  }

  /** Appends the text it was read from; only when {@link #unchanged}. */
  void appendSource(StringBuilder out) {
    out.append(source, start, end);
  }
}
