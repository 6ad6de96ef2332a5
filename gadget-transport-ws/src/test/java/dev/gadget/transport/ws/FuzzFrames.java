package dev.gadget.transport.ws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

/**
 * Mutated Engine.IO / Socket.IO frames for the fuzz test, from one seeded {@link Random}: a
 * corpus of the packets pages and drones send (docs/PROTOCOL.md), mutated either softly (the
 * packet stays well-formed; its namespace, ack id, event name or JSON payload changes: wrong
 * types, missing or extra fields, extreme numbers, long or odd strings, deep nesting) or hard
 * (bytes flipped, inserted, cut, or a broken WebSocket frame: unmasked, reserved bits, unknown
 * opcodes, bad fragments, invalid UTF-8, bad close frames, lengths over the limit).
 */
final class FuzzFrames {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String[] PAGE_EVENTS = {"listProjects", "createProject", "listSessions",
      "createSession", "listDrones", "watchSession", "unwatchSession", "submitPrompt",
      "cancelTurn", "requestSessionLock", "requestWorkspaceMode"};
  private static final String[] DRONE_EVENTS = {"thinking", "response", "toolCall", "heartbeat",
      "workOrderComplete", "droneStatus", "requestCrashRecovery"};
  private static final String[] ODD_STRINGS = {"", " ", "null", "\u0000", "\u202e\u200b",
      "😀", "../../etc/passwd", "<script>alert(1)</script>", "%s%n", "\\", "\"", "{}", "[]",
      "gdt_", "/drone", "_placeholder"};

  private static final String SYNTAX = "\"[]{},/:-0123456789\u0000";

  private final Random random;
  private final int maxPayload;
  private final String pageToken;
  private final String droneToken;

  FuzzFrames(long seed, int maxPayload, String pageToken, String droneToken) {
    this.random = new Random(seed);
    this.maxPayload = maxPayload;
    this.pageToken = pageToken;
    this.droneToken = droneToken;
  }

  /** One WebSocket frame as the client sends it, and whether it was changed from the corpus. */
  record Frame(byte[] bytes, boolean mutated) {}

  Random random() {
    return random;
  }

  /** A CONNECT (as a masked text frame): the right tokens, wrong ones or none. */
  byte[] connect() {
    int pick = random.nextInt(20);
    String packet;
    if (pick < 10) {
      packet = "40" + obj("token", pageToken);
    } else if (pick < 14) {
      packet = "40/drone," + droneAuth().toString();
    } else if (pick < 17) {
      packet = "40" + obj("token", "gdt_" + Long.toHexString(random.nextLong()));
    } else if (pick < 19) {
      packet = "40";
    } else {
      packet = "40/admin," + obj("token", pageToken);
    }
    return text(packet);
  }

  /** The HTTP upgrade request with some bytes changed. */
  byte[] mutatedHandshake(int port) {
    return hard(WireSocket.upgradeRequest(port).getBytes(StandardCharsets.US_ASCII));
  }

  /** A packet that stays well-formed, its content changed (some are sent unchanged). */
  List<Frame> soft() {
    List<Frame> out = new ArrayList<>(2);
    int pick = random.nextInt(100);
    if (pick < 5) {
      out.add(new Frame(text(corpusPacket()), false));
    } else if (pick < 10) {
      String[] engine = {"3", "6", "41", "41/drone,", "40/nope,", "43" + random.nextInt(5) + "[{}]"};
      out.add(new Frame(text(engine[random.nextInt(engine.length)]), true));
    } else if (pick < 15) {
      // A binary event: the placeholder, then the attachment.
      out.add(new Frame(text("451-" + ns() + "[\"" + event() + "\",{\"_placeholder\":true,\"num\":0}]"),
          true));
      byte[] attachment = new byte[random.nextInt(64)];
      random.nextBytes(attachment);
      out.add(new Frame(WireSocket.encode(0x82, attachment, mask()), true));
    } else {
      out.add(new Frame(text(mutatedPacket()), true));
    }
    return out;
  }

  /** A frame that most likely breaks the protocol. */
  Frame hard() {
    int pick = random.nextInt(100);
    byte[] payload = corpusPacket().getBytes(StandardCharsets.UTF_8);
    if (pick < 40) {
      return new Frame(text(hard(payload)), true);
    }
    if (pick < 50) {
      return new Frame(WireSocket.encode(0x81, payload, null), true); // unmasked
    }
    if (pick < 58) {
      int b0 = 0x80 | (random.nextInt(8) << 4) | random.nextInt(16);
      return new Frame(WireSocket.encode(b0, payload, mask()), true); // any RSV bits / opcode
    }
    if (pick < 66) {
      byte[] bad = payload.clone();
      bad[random.nextInt(bad.length)] = (byte) (0x80 | random.nextInt(0x80));
      return new Frame(WireSocket.encode(0x81, bad, mask()), true); // likely invalid UTF-8
    }
    if (pick < 74) {
      // A fragmented message, its pieces possibly out of order.
      int cut = random.nextInt(payload.length + 1);
      byte[] a = java.util.Arrays.copyOfRange(payload, 0, cut);
      byte[] b = java.util.Arrays.copyOfRange(payload, cut, payload.length);
      int[][] orders = {{0x01, 0x80}, {0x00, 0x80}, {0x01, 0x81}, {0x01, 0x00}, {0x81, 0x80}};
      int[] order = orders[random.nextInt(orders.length)];
      return new Frame(concat(WireSocket.encode(order[0], a, mask()),
          WireSocket.encode(order[1], b, mask())), true);
    }
    if (pick < 82) {
      byte[] close = new byte[random.nextInt(6)];
      random.nextBytes(close);
      return new Frame(WireSocket.encode(0x88, close, mask()), true); // close, odd code/reason
    }
    if (pick < 88) {
      byte[] ping = new byte[random.nextInt(140)];
      random.nextBytes(ping);
      return new Frame(WireSocket.encode(random.nextBoolean() ? 0x89 : 0x8A, ping, mask()), true);
    }
    if (pick < 94) {
      // A length over the limit: only the header and a few bytes are sent.
      long length = maxPayload + 1 + (random.nextBoolean() ? random.nextInt(1000) : Integer.MAX_VALUE);
      ByteArrayOutputStream f = new ByteArrayOutputStream();
      f.write(0x81);
      f.write(0x80 | 127);
      for (int i = 7; i >= 0; i--) {
        f.write((int) ((length >>> (8 * i)) & 0xFF));
      }
      f.writeBytes(mask());
      f.writeBytes(payload);
      return new Frame(f.toByteArray(), true);
    }
    // A packet of the wrong Engine.IO or Socket.IO type.
    String[] wrong = {"2", "0", "5", "7", "9", "x", "4", "47", "48", "42", "4[\"connect\"]",
        "42[\"disconnect\"]", "422", "43[]", "40/drone,[]", "45-[]", "429007199254740993[\"a\"]",
        "43" + Math.abs(random.nextLong()) + "[]"};
    return new Frame(text(wrong[random.nextInt(wrong.length)]), true);
  }

  // ---- the corpus ------------------------------------------------------------------------

  private String corpusPacket() {
    ArrayNode args = NODES.arrayNode();
    boolean drone = random.nextInt(4) == 0;
    args.add(drone ? DRONE_EVENTS[random.nextInt(DRONE_EVENTS.length)]
        : PAGE_EVENTS[random.nextInt(PAGE_EVENTS.length)]);
    args.add(payloadFor(args.get(0).asText()));
    String ack = random.nextBoolean() ? String.valueOf(random.nextInt(1000)) : "";
    return "42" + (drone ? "/drone," : "") + ack + args;
  }

  private JsonNode payloadFor(String event) {
    ObjectNode p = NODES.objectNode();
    String id = Long.toHexString(random.nextLong());
    switch (event) {
      case "createProject" -> p.put("name", "p" + id).put("slug", "s" + id).put("gitUrl", "/tmp/" + id);
      case "listSessions", "createSession" -> p.put("projectId", id).put("name", "n");
      case "watchSession", "unwatchSession", "requestSessionLock" -> p.put("sessionId", id);
      case "submitPrompt" -> p.put("sessionId", id).put("prompt", "hello").put("mode", "agent");
      case "cancelTurn" -> p.put("turnId", id);
      case "requestWorkspaceMode" -> p.put("droneId", id).put("mode", "user");
      case "thinking", "response" -> p.put("turnId", id).put("seq", random.nextInt(5)).put("data", "x");
      case "toolCall" -> p.put("turnId", id).put("seq", 1).set("call", NODES.objectNode()
          .put("callId", "c").put("name", "read_file").put("parameters", "{}").put("response", "r"));
      case "heartbeat" -> p.put("turnId", id).put("seq", 3);
      case "workOrderComplete" -> p.put("turnId", id).put("seq", 4).put("status", "finished")
          .set("stats", NODES.objectNode());
      case "droneStatus" -> p.put("status", "available");
      case "requestCrashRecovery" -> p.put("workspaceId", id).put("turnId", id)
          .put("chatSessionId", id).put("workOrderId", id).set("journaledMessages", NODES.arrayNode());
      default -> { }
    }
    return p;
  }

  private ObjectNode droneAuth() {
    return NODES.objectNode().put("token", droneToken)
        .put("workspaceId", "fuzz-ws-" + random.nextInt(3))
        .put("hostname", "fuzz").put("workspaceDir", "/tmp/fuzz");
  }

  // ---- soft mutations: still a well-formed packet ----------------------------------------

  private String mutatedPacket() {
    ArrayNode args = NODES.arrayNode();
    args.add(event());
    int count = random.nextInt(10) == 0 ? random.nextInt(4) : 1;
    for (int i = 0; i < count; i++) {
      JsonNode payload = payloadFor(PAGE_EVENTS[random.nextInt(PAGE_EVENTS.length)]);
      args.add(mutate(payload, 0));
    }
    String ack = switch (random.nextInt(6)) {
      case 0 -> String.valueOf(random.nextInt(100));
      case 1 -> String.valueOf(random.nextLong(1_000_000_000_000_000L)); // 15 digits at most
      default -> "";
    };
    if (random.nextInt(50) == 0) {
      int depth = 990 + random.nextInt(2000);
      return "42" + ns() + ack + "[\"" + event() + "\"," + "[".repeat(depth) + "]".repeat(depth) + "]";
    }
    return "42" + ns() + ack + args;
  }

  private String ns() {
    return switch (random.nextInt(8)) {
      case 0 -> "/drone,";
      case 1 -> "/" + Integer.toHexString(random.nextInt()) + ",";
      default -> "";
    };
  }

  private String event() {
    int pick = random.nextInt(10);
    if (pick < 6) {
      return PAGE_EVENTS[random.nextInt(PAGE_EVENTS.length)];
    }
    if (pick < 8) {
      return DRONE_EVENTS[random.nextInt(DRONE_EVENTS.length)];
    }
    return oddString();
  }

  private JsonNode mutate(JsonNode node, int depth) {
    if (node.isObject() && random.nextInt(4) != 0) {
      ObjectNode o = ((ObjectNode) node).deepCopy();
      List<String> names = new ArrayList<>();
      for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
        names.add(it.next());
      }
      int changes = 1 + random.nextInt(3);
      for (int i = 0; i < changes; i++) {
        int op = random.nextInt(4);
        if (op == 0 && !names.isEmpty()) {
          o.remove(names.get(random.nextInt(names.size())));
        } else if (op == 1) {
          o.set(oddString(), value(depth));
        } else if (!names.isEmpty()) {
          String name = names.get(random.nextInt(names.size()));
          o.set(name, value(depth));
        }
      }
      return o;
    }
    return value(depth);
  }

  private JsonNode value(int depth) {
    switch (random.nextInt(12)) {
      case 0: return NODES.nullNode();
      case 1: return NODES.booleanNode(random.nextBoolean());
      case 2: return NODES.numberNode(random.nextLong());
      case 3: return NODES.numberNode(random.nextDouble() * 1e300);
      case 4: return NODES.numberNode(new java.math.BigInteger(200, random));
      case 5: return NODES.textNode(oddString());
      case 6: return NODES.textNode("z".repeat(random.nextInt(20_000)));
      case 7: {
        ArrayNode a = NODES.arrayNode();
        for (int i = random.nextInt(5); i > 0 && depth < 4; i--) {
          a.add(value(depth + 1));
        }
        return a;
      }
      case 8: {
        ObjectNode o = NODES.objectNode();
        for (int i = random.nextInt(5); i > 0 && depth < 4; i--) {
          o.set(oddString(), value(depth + 1));
        }
        return o;
      }
      case 9: {
        // Deep nesting (mutatedPacket goes past Jackson's limit of 1000 levels, as text).
        JsonNode deep = NODES.numberNode(1);
        for (int i = random.nextInt(900); i > 0; i--) {
          deep = NODES.arrayNode().add(deep);
        }
        return deep;
      }
      case 10: return NODES.objectNode().put("_placeholder", true).put("num", random.nextInt(20));
      default: return NODES.textNode(Long.toHexString(random.nextLong()));
    }
  }

  private String oddString() {
    return random.nextBoolean() ? ODD_STRINGS[random.nextInt(ODD_STRINGS.length)]
        : new String(Character.toChars(random.nextInt(0x10FFFF - 0xE000) + 0xE000))
            + Integer.toHexString(random.nextInt());
  }

  // ---- hard mutations: bytes ---------------------------------------------------------------

  private byte[] hard(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length + 16);
    out.writeBytes(bytes);
    byte[] b = out.toByteArray();
    int ops = 1 + random.nextInt(3);
    for (int i = 0; i < ops && b.length > 0; i++) {
      int at = random.nextInt(b.length);
      switch (random.nextInt(5)) {
        case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
        case 1 -> b[at] = (byte) SYNTAX.charAt(random.nextInt(SYNTAX.length()));
        case 2 -> {
          byte[] insert = new byte[1 + random.nextInt(8)];
          random.nextBytes(insert);
          b = concat(java.util.Arrays.copyOfRange(b, 0, at), insert,
              java.util.Arrays.copyOfRange(b, at, b.length));
        }
        case 3 -> b = concat(java.util.Arrays.copyOfRange(b, 0, at),
            java.util.Arrays.copyOfRange(b, Math.min(b.length, at + 1 + random.nextInt(8)), b.length));
        default -> b = java.util.Arrays.copyOfRange(b, 0, at);
      }
    }
    return b;
  }

  // ---- frames --------------------------------------------------------------------------

  private byte[] text(String packet) {
    return text(packet.getBytes(StandardCharsets.UTF_8));
  }

  private byte[] text(byte[] payload) {
    return WireSocket.encode(0x81, payload, mask());
  }

  private byte[] mask() {
    byte[] m = new byte[4];
    random.nextBytes(m);
    return m;
  }

  private static String obj(String key, String value) {
    return NODES.objectNode().put(key, value).toString();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
