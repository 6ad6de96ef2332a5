package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.gadget.core.GadgetJson;
import java.util.Iterator;
import java.util.Map;

/**
 * Writes a JSON tree as text, the same text Jackson's {@code JsonNode.toString()} writes, into a
 * builder the caller already holds: every outgoing packet is a tree, and a generator, a
 * serializer provider and a string of their own per packet cost more than the packet. Objects,
 * arrays, strings, ints, longs, booleans and nulls are written here; any other node (decimals,
 * big numbers, binary, POJOs) is left to Jackson, but raw JSON text ({@link GadgetJson#raw}),
 * written as it is. An object read from an incoming packet and
 * left unchanged ({@link SourcedObject}) is written as the text it was read from.
 */
final class JsonText {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private JsonText() {}

  static void append(StringBuilder out, JsonNode node) {
    if (node instanceof TextNode) {
      string(out, node.textValue());
    } else if (node instanceof SourcedObject sourced && sourced.unchanged()) {
      sourced.appendSource(out); // relayed as received
    } else if (node instanceof ObjectNode object) {
      out.append('{');
      Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
      boolean first = true;
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        if (!first) {
          out.append(',');
        }
        first = false;
        string(out, field.getKey());
        out.append(':');
        append(out, field.getValue());
      }
      out.append('}');
    } else if (node instanceof ArrayNode array) {
      out.append('[');
      for (int i = 0; i < array.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        append(out, array.get(i));
      }
      out.append(']');
    } else if (node instanceof IntNode || node instanceof LongNode) {
      out.append(node.longValue());
    } else if (node instanceof BooleanNode) {
      out.append(node.booleanValue());
    } else if (node instanceof NullNode) {
      out.append("null");
    } else if (GadgetJson.rawText(node) != null) {
      out.append(GadgetJson.rawText(node)); // JSON text already written (a relayed event)
    } else {
      out.append(node);
    }
  }

  /** A JSON string, escaped as Jackson escapes it by default. */
  static void string(StringBuilder out, String s) {
    out.append('"');
    int from = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      out.append(s, from, i);
      from = i + 1;
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
      }
    }
    out.append(s, from, s.length()).append('"');
  }
}
