package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the JSON of an incoming packet into the tree Jackson's {@code readTree} makes of it, for
 * the common case only: objects, arrays, strings, integers of up to 18 digits, booleans and
 * null, nested at most {@value #MAX_DEPTH} deep. For anything else (a fraction or exponent, a
 * longer number, deeper nesting, and every malformed text) it answers null and the caller asks
 * Jackson, whose tree and whose error are then the answer: this reader never accepts what
 * Jackson refuses, and never words an error. One stream event a token makes this the hottest
 * parse on the server, and for a packet of a hundred characters Jackson's setup (a parser, its
 * buffers, a context) costs more than the reading.
 */
final class JsonTree {
  /** Deeper than this, Jackson reads (it has its own bound on nesting). */
  static final int MAX_DEPTH = 32;
  /** Longer names go to Jackson (it refuses names over 50,000 characters). */
  static final int MAX_NAME = 1_000;
  /** Longer strings go to Jackson (it has its own bound). */
  static final int MAX_STRING = 1_000_000;
  /** Names up to this long are looked up in {@link #NAMES} before one is made. */
  static final int MAX_CACHED = 40;
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  /**
   * Object names read lately (and event names: an array's first string), shared by every
   * reader: the same few names come on every event,
   * and one found here is neither made nor hashed again (the object's map hashes it, the payload
   * reader looks it up). Values are not kept: ids and tokens would churn the table, and a table
   * written by several threads costs each of them its cache lines. The race between readers is
   * benign: a slot holds null or some immutable string, checked against the text before use.
   */
  private static final String[] NAMES = new String[512];

  private final String s;
  private int i;

  private JsonTree(String s, int from) {
    this.s = s;
    this.i = from;
  }

  /** The tree of {@code s} from {@code from} to its end, or null when Jackson must read it. */
  static JsonNode read(String s, int from) {
    JsonTree reader = new JsonTree(s, from);
    JsonNode node = reader.value(0);
    if (node == null) {
      return null;
    }
    reader.skipSpace();
    return reader.i == s.length() ? node : null; // trailing text: Jackson's error
  }

  private JsonNode value(int depth) {
    skipSpace();
    if (i >= s.length()) {
      return null;
    }
    char c = s.charAt(i);
    switch (c) {
      case '{':
        return depth < MAX_DEPTH ? object(depth + 1) : null;
      case '[':
        return depth < MAX_DEPTH ? array(depth + 1) : null;
      case '"': {
        String text = string(false);
        return text == null || text.length() > MAX_STRING ? null : TextNode.valueOf(text);
      }
      case 't':
        return word("true") ? BooleanNode.TRUE : null;
      case 'f':
        return word("false") ? BooleanNode.FALSE : null;
      case 'n':
        return word("null") ? NullNode.getInstance() : null;
      default:
        return c == '-' || (c >= '0' && c <= '9') ? number() : null;
    }
  }

  private ObjectNode object(int depth) {
    int start = i;
    i++; // '{'
    Map<String, JsonNode> children = new LinkedHashMap<>(8); // most hold a few fields
    // the names and values read, while the object may still be sourced (see SourcedObject)
    Object[] read = s.length() <= SourcedObject.MAX_SOURCE ? new Object[8] : null;
    int fields = 0;
    skipSpace();
    if (i < s.length() && s.charAt(i) == '}') {
      i++;
      return new ObjectNode(NODES, children);
    }
    while (true) {
      skipSpace();
      if (i >= s.length() || s.charAt(i) != '"') {
        return null;
      }
      String key = string(true);
      skipSpace();
      if (key == null || key.length() > MAX_NAME || i >= s.length() || s.charAt(i) != ':') {
        return null;
      }
      i++;
      JsonNode value = value(depth);
      if (value == null) {
        return null;
      }
      // a repeated key: the last value, in the first one's place (as ObjectNode.replace)
      if (children.put(key, value) != null || value.isContainerNode()
          || fields == SourcedObject.MAX_FIELDS) {
        read = null;
      } else if (read != null) {
        if (read.length == 2 * fields) {
          read = Arrays.copyOf(read, read.length * 2);
        }
        read[2 * fields] = key;
        read[2 * fields + 1] = value;
        fields++;
      }
      skipSpace();
      if (i >= s.length()) {
        return null;
      }
      char c = s.charAt(i++);
      if (c == '}') {
        return read == null ? new ObjectNode(NODES, children)
            : new SourcedObject(NODES, children, s, start, i, read, fields);
      }
      if (c != ',') {
        return null;
      }
    }
  }

  private ArrayNode array(int depth) {
    i++; // '['
    ArrayNode node = NODES.arrayNode(4); // most are an event's name and its argument
    skipSpace();
    if (i < s.length() && s.charAt(i) == ']') {
      i++;
      return node;
    }
    boolean first = true;
    while (true) {
      // an array's first string is an event's name: looked up as object names are
      JsonNode value = first && i < s.length() && s.charAt(i) == '"' ? name() : value(depth);
      first = false;
      if (value == null) {
        return null;
      }
      node.add(value);
      skipSpace();
      if (i >= s.length()) {
        return null;
      }
      char c = s.charAt(i++);
      if (c == ']') {
        return node;
      }
      if (c != ',') {
        return null;
      }
    }
  }

  /** A string at {@code i} (its opening quote) read as a name (from NAMES if known), or null. */
  private JsonNode name() {
    String text = string(true);
    return text == null || text.length() > MAX_STRING ? null : TextNode.valueOf(text);
  }

  /** A string at {@code i} (its opening quote), or null; a {@code name} may come from NAMES. */
  private String string(boolean name) {
    int from = ++i;
    int hash = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '"') {
        return name ? name(from, i++, hash) : s.substring(from, i++);
      }
      if (c == '\\') {
        return escaped(from);
      }
      if (c < 0x20) {
        return null; // a raw control character: Jackson refuses it
      }
      hash = 31 * hash + c; // as String.hashCode
      i++;
    }
    return null;
  }

  /** The name from {@code from} to {@code to} (no escapes), whose String hash is {@code hash}. */
  private String name(int from, int to, int hash) {
    int length = to - from;
    if (length > MAX_CACHED) {
      return s.substring(from, to);
    }
    int slot = (hash ^ hash >>> 9) & (NAMES.length - 1);
    String known = NAMES[slot];
    if (known != null && known.hashCode() == hash && known.length() == length
        && s.regionMatches(from, known, 0, length)) {
      return known;
    }
    String made = s.substring(from, to);
    NAMES[slot] = made;
    return made;
  }

  /** The rest of a string with escapes, its plain start at {@code from}. */
  private String escaped(int from) {
    StringBuilder out = new StringBuilder(i - from + 16).append(s, from, i);
    while (i < s.length()) {
      char c = s.charAt(i++);
      if (c == '"') {
        return out.toString();
      }
      if (c < 0x20) {
        return null;
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      if (i >= s.length()) {
        return null;
      }
      switch (s.charAt(i++)) {
        case '"' -> out.append('"');
        case '\\' -> out.append('\\');
        case '/' -> out.append('/');
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          int code = hex4();
          if (code < 0) {
            return null;
          }
          out.append((char) code);
        }
        default -> {
          return null;
        }
      }
    }
    return null;
  }

  private int hex4() {
    if (i + 4 > s.length()) {
      return -1;
    }
    int code = 0;
    for (int k = 0; k < 4; k++) {
      int d = Character.digit(s.charAt(i++), 16);
      if (d < 0) {
        return -1;
      }
      code = code << 4 | d;
    }
    return code;
  }

  /** An integer of at most 18 digits (no leading zero), or null. */
  private JsonNode number() {
    int start = i;
    boolean negative = s.charAt(i) == '-';
    if (negative) {
      i++;
    }
    int digitsFrom = i;
    long value = 0;
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      value = value * 10 + (s.charAt(i) - '0');
      i++;
      if (i - digitsFrom > 18) {
        return null;
      }
    }
    int digits = i - digitsFrom;
    if (digits == 0 || (digits > 1 && s.charAt(digitsFrom) == '0')) {
      return null;
    }
    if (i < s.length()) {
      char next = s.charAt(i);
      if (next == '.' || next == 'e' || next == 'E') {
        return null; // a fraction or exponent: Jackson reads it
      }
    }
    if (negative) {
      value = -value;
    }
    assert i > start;
    return value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE
        ? IntNode.valueOf((int) value) : LongNode.valueOf(value);
  }

  private boolean word(String w) {
    if (!s.startsWith(w, i)) {
      return false;
    }
    i += w.length();
    return true;
  }

  private void skipSpace() {
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return;
      }
      i++;
    }
  }
}
