package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Random;

/** Random JSON trees for the tests that hold Gadget's JSON code to Jackson's. */
final class RandomJson {
  private static final JsonNodeFactory F = JsonNodeFactory.instance;

  private RandomJson() {}

  /** A random tree at most {@code depth} containers deep: every kind of node, odd strings. */
  static JsonNode node(Random random, int depth) {
    int kind = random.nextInt(depth > 0 ? 8 : 6);
    switch (kind) {
      case 0: return F.textNode(string(random));
      case 1: return F.numberNode(random.nextInt());
      case 2: return F.numberNode(random.nextLong());
      case 3: return F.booleanNode(random.nextBoolean());
      case 4: return F.nullNode();
      case 5: return F.numberNode(random.nextDouble() * 1e6);
      case 6: {
        ObjectNode o = F.objectNode();
        for (int i = random.nextInt(5); i > 0; i--) {
          o.set(string(random), node(random, depth - 1));
        }
        return o;
      }
      default: {
        ArrayNode a = F.arrayNode();
        for (int i = random.nextInt(5); i > 0; i--) {
          a.add(node(random, depth - 1));
        }
        return a;
      }
    }
  }

  /** A random string: printable ASCII, control characters, and characters past ASCII. */
  static String string(Random random) {
    StringBuilder s = new StringBuilder();
    for (int i = random.nextInt(12); i > 0; i--) {
      int pick = random.nextInt(10);
      s.append(pick < 6 ? (char) (' ' + random.nextInt(95)) : pick < 8
          ? (char) random.nextInt(0x20) : (char) (0x80 + random.nextInt(0xD000)));
    }
    return s.toString();
  }
}
