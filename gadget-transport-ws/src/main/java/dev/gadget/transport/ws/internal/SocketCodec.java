package dev.gadget.transport.ws.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.transport.ws.internal.SocketPacket.Type;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Socket.IO v5 packet codec, pure and I/O-free:
 * {@code <type>[<attachments>-][<namespace>,][<ack id>][<JSON>]}. Binary values become
 * {@code {"_placeholder":true,"num":n}} in the JSON and travel as separate attachments.
 *
 * <p>Encoding is stateless and thread-safe; a {@link Decoder} holds one connection's state (a
 * binary packet waiting for its attachments) and is not thread-safe.
 */
public final class SocketCodec {
  /** Event names the stock client and server reserve; emitting them is refused. */
  public static final Set<String> RESERVED_EVENTS = Set.of(
      "connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener");

  /**
   * Whether {@code event} is one of {@link #RESERVED_EVENTS}. Every event sent and received
   * asks: a name of another length than theirs (the stream's {@code thinking} and
   * {@code response} among them) is answered without hashing.
   */
  static boolean isReserved(String event) {
    switch (event.length()) {
      case 7, 10, 11, 13, 14:
        return RESERVED_EVENTS.contains(event);
      default:
        return false;
    }
  }

  /** Socket.IO's default limit on attachments per packet. */
  public static final int DEFAULT_MAX_ATTACHMENTS = 10;

  static final ObjectMapper JSON = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private static final int MAX_ACK_ID_DIGITS = 15;
  private static final Type[] TYPES = Type.values();

  private SocketCodec() {}

  /** An encoded packet: one text payload and its binary attachments, in order. */
  public record Encoded(String text, List<byte[]> attachments) {
    public Encoded {
      attachments = List.copyOf(attachments);
    }
  }

  /**
   * Encodes {@code packet}. An EVENT or ACK whose data holds binary values is sent as a
   * BINARY_EVENT or BINARY_ACK with placeholders.
   */
  public static Encoded encode(SocketPacket packet) {
    return encode(packet, new StringBuilder());
  }

  /**
   * Encodes {@code packet} after what {@code out} holds already (a server puts the Engine.IO
   * message type first, so the frame's text is built once).
   */
  public static Encoded encode(SocketPacket packet, StringBuilder out) {
    List<byte[]> attachments = List.of();
    JsonNode data = packet.data();
    if (data != null && hasBinary(data)) { // copied only to put placeholders in
      attachments = new ArrayList<>();
      data = deconstruct(data, attachments);
    }
    Type type = packet.type();
    if (!attachments.isEmpty()) {
      if (type == Type.EVENT) {
        type = Type.BINARY_EVENT;
      } else if (type == Type.ACK) {
        type = Type.BINARY_ACK;
      }
    }
    out.append((char) ('0' + type.ordinal()));
    if (type == Type.BINARY_EVENT || type == Type.BINARY_ACK) {
      out.append(attachments.size()).append('-');
    }
    if (!"/".equals(packet.namespace())) {
      out.append(packet.namespace()).append(',');
    }
    if (packet.id() != null) {
      out.append(packet.id());
    }
    if (data != null) {
      JsonText.append(out, data);
    }
    return new Encoded(out.toString(), attachments);
  }

  private static JsonNode deconstruct(JsonNode node, List<byte[]> attachments) {
    if (node.isBinary()) {
      ObjectNode placeholder = JSON.createObjectNode();
      placeholder.put("_placeholder", true);
      placeholder.put("num", attachments.size());
      attachments.add(((BinaryNode) node).binaryValue());
      return placeholder;
    }
    if (node.isArray()) {
      ArrayNode copy = JSON.createArrayNode();
      node.forEach(child -> copy.add(deconstruct(child, attachments)));
      return copy;
    }
    if (node.isObject()) {
      ObjectNode copy = JSON.createObjectNode();
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        copy.set(field.getKey(), deconstruct(field.getValue(), attachments));
      }
      return copy;
    }
    return node;
  }

  /** Whether {@code node} (at any depth) holds a binary value. */
  public static boolean hasBinary(JsonNode node) {
    if (node == null) {
      return false;
    }
    if (node.isBinary()) {
      return true;
    }
    if (node instanceof SourcedObject sourced && sourced.unchanged()) {
      return false; // read from text: no binary in it
    }
    if (node.isArray()) { // by index: an event's array, once per packet sent
      for (int i = 0; i < node.size(); i++) {
        if (hasBinary(node.get(i))) {
          return true;
        }
      }
      return false;
    }
    for (JsonNode child : node) {
      if (hasBinary(child)) {
        return true;
      }
    }
    return false;
  }

  /** Decodes one connection's packets from its text and binary payloads. Not thread-safe. */
  public static final class Decoder {
    private final int maxAttachments;
    private SocketPacket pending;
    private int expected;
    private final List<byte[]> buffers = new ArrayList<>();

    public Decoder() {
      this(DEFAULT_MAX_ATTACHMENTS);
    }

    public Decoder(int maxAttachments) {
      this.maxAttachments = maxAttachments;
    }

    /**
     * Takes one text payload. Returns the packet, or {@code null} when it is a binary packet
     * whose attachments follow.
     */
    public SocketPacket text(String text) throws ProtocolException {
      if (pending != null) {
        throw new ProtocolException("text packet while waiting for " + (expected - buffers.size())
            + " binary attachment(s)");
      }
      Header header = parseHeader(text);
      if (header.attachments > 0) {
        pending = header.packet;
        expected = header.attachments;
        buffers.clear();
        return null;
      }
      return header.packet;
    }

    /** Takes one binary attachment. Returns the packet once its last attachment arrived. */
    public SocketPacket binary(byte[] data) throws ProtocolException {
      if (pending == null) {
        throw new ProtocolException("binary frame without a binary packet waiting for it");
      }
      buffers.add(data);
      if (buffers.size() < expected) {
        return null;
      }
      SocketPacket head = pending;
      pending = null;
      List<byte[]> attachments = List.copyOf(buffers);
      buffers.clear();
      JsonNode data1 = reconstruct(head.data(), attachments);
      Type type = head.type() == Type.BINARY_EVENT ? Type.EVENT : Type.ACK;
      return new SocketPacket(type, head.namespace(), head.id(), data1);
    }

    /** Whether a binary packet is waiting for attachments. */
    public boolean isReconstructing() {
      return pending != null;
    }

    private record Header(SocketPacket packet, int attachments) {}

    private Header parseHeader(String str) throws ProtocolException {
      if (str.isEmpty()) {
        throw new ProtocolException("empty Socket.IO packet");
      }
      int code = str.charAt(0) - '0';
      if (code < 0 || code >= TYPES.length) {
        throw new ProtocolException("unknown Socket.IO packet type '" + str.charAt(0) + "'");
      }
      Type type = TYPES[code];
      int i = 1;
      int attachments = 0;
      if (type == Type.BINARY_EVENT || type == Type.BINARY_ACK) {
        int dash = str.indexOf('-', i);
        if (dash < 0 || dash == i || dash - i > 6 || !allDigits(str, i, dash)) {
          throw new ProtocolException("illegal attachment count");
        }
        attachments = Integer.parseInt(str.substring(i, dash));
        if (attachments < 1) {
          throw new ProtocolException("illegal attachment count " + attachments);
        }
        if (attachments > maxAttachments) {
          throw new ProtocolException("too many attachments: " + attachments + " > " + maxAttachments);
        }
        i = dash + 1;
      }
      String namespace = "/";
      if (i < str.length() && str.charAt(i) == '/') {
        int comma = str.indexOf(',', i);
        int end = comma < 0 ? str.length() : comma;
        namespace = str.substring(i, end);
        i = comma < 0 ? str.length() : comma + 1;
      }
      Long id = null;
      int digits = i;
      while (digits < str.length() && str.charAt(digits) >= '0' && str.charAt(digits) <= '9') {
        digits++;
      }
      if (digits > i) {
        if (digits - i > MAX_ACK_ID_DIGITS) {
          throw new ProtocolException("ack id too long");
        }
        id = Long.parseLong(str.substring(i, digits));
        i = digits;
      }
      JsonNode data = i < str.length() ? parseJson(str, i) : null;
      validate(type, id, data, str);
      return new Header(new SocketPacket(type, namespace, id, data), attachments);
    }
  }

  private static void validate(Type type, Long id, JsonNode data, String str)
      throws ProtocolException {
    boolean valid;
    switch (type) {
      case CONNECT:
        valid = data == null || data.isObject();
        break;
      case DISCONNECT:
        valid = data == null;
        break;
      case CONNECT_ERROR:
        valid = data != null && (data.isTextual() || data.isObject());
        break;
      case EVENT:
      case BINARY_EVENT:
        valid = data != null && data.isArray() && data.size() > 0
            && (data.get(0).isNumber()
                || (data.get(0).isTextual() && !isReserved(data.get(0).asText())));
        break;
      case ACK:
      case BINARY_ACK:
        valid = data != null && data.isArray() && id != null;
        break;
      default:
        valid = false;
    }
    if (!valid) {
      // The payload is not quoted: a CONNECT may carry a secret.
      throw new ProtocolException("invalid " + type + " packet (" + str.length() + " chars)");
    }
  }

  private static JsonNode reconstruct(JsonNode node, List<byte[]> buffers) throws ProtocolException {
    if (node == null) {
      return null;
    }
    if (node.isObject() && node.path("_placeholder").asBoolean(false)
        && node.get("_placeholder").isBoolean()) {
      JsonNode num = node.get("num");
      if (num == null || !num.isIntegralNumber() || num.asInt() < 0 || num.asInt() >= buffers.size()) {
        throw new ProtocolException("illegal attachment placeholder num " + num);
      }
      return BinaryNode.valueOf(buffers.get(num.asInt()));
    }
    if (node.isArray()) {
      ArrayNode copy = JSON.createArrayNode();
      for (JsonNode child : node) {
        copy.add(reconstruct(child, buffers));
      }
      return copy;
    }
    if (node.isObject()) {
      ObjectNode copy = JSON.createObjectNode();
      Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
      while (fields.hasNext()) {
        Map.Entry<String, JsonNode> field = fields.next();
        copy.set(field.getKey(), reconstruct(field.getValue(), buffers));
      }
      return copy;
    }
    return node;
  }

  /** The JSON of {@code str} from {@code from} on ({@link JsonTree}, else Jackson). */
  static JsonNode parseJson(String str, int from) throws ProtocolException {
    JsonNode tree = JsonTree.read(str, from);
    return tree != null ? tree : parseJson(str.substring(from));
  }

  static JsonNode parseJson(String json) throws ProtocolException {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      // Neither the text nor Jackson's message (which quotes tokens) is kept: it may be a secret.
      throw new ProtocolException("malformed JSON in packet at column "
          + (e.getLocation() == null ? "?" : e.getLocation().getColumnNr())
          + " (" + json.length() + " chars)");
    }
  }

  private static boolean allDigits(String s, int from, int to) {
    for (int k = from; k < to; k++) {
      char c = s.charAt(k);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** The first 100 characters of {@code s}, for error messages. */
  static String abbreviate(String s) {
    return s.length() <= 100 ? s : s.substring(0, 100) + "...(" + s.length() + " chars)";
  }
}
