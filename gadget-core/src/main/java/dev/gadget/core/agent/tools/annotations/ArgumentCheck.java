package dev.gadget.core.agent.tools.annotations;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.agent.tools.annotations.Shape.Field;
import dev.gadget.core.agent.tools.annotations.Shape.Scalar;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Checks the model's arguments against a tool's {@link Shape}s before Jackson binds them, so that
 * every problem is told in the model's terms ({@code argument "days" must be an integer (got
 * "seven")}) and all of them at once. It also forgives what models commonly send: numbers and
 * booleans as strings, {@code 3.0} for an integer, enum constants in another case, and a list or
 * object sent as a JSON string. Stateless.
 */
final class ArgumentCheck {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int MAX_PROBLEMS = 10;
  private static final int MAX_SHOWN = 60;

  private final List<String> problems = new ArrayList<>();

  private ArgumentCheck() {}

  /**
   * Checks {@code arguments} against the fields of a tool.
   *
   * @return the arguments to bind, with what was forgiven put right
   * @throws ArgumentsRefused with every problem found, in people's words
   */
  static ObjectNode check(Shape.Fields parameters, ObjectNode arguments) {
    ArgumentCheck check = new ArgumentCheck();
    ObjectNode checked = check.fields(parameters, arguments, "");
    if (!check.problems.isEmpty()) {
      throw new ArgumentsRefused(check.problems);
    }
    return checked;
  }

  /** The arguments did not fit: the message says how, one sentence per problem. */
  static final class ArgumentsRefused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    ArgumentsRefused(List<String> problems) {
      super(String.join("; ", problems), null, false, false);
    }
  }

  private void problem(String text) {
    if (problems.size() < MAX_PROBLEMS) {
      problems.add(text);
    }
  }

  private JsonNode value(Shape shape, JsonNode node, String path) {
    if (shape instanceof Shape.Any) {
      return node;
    }
    if (node.isNull()) {
      problem("argument \"" + path + "\" must be " + shape.words() + ", not null");
      return node;
    }
    if (shape instanceof Scalar s) {
      return scalar(s, node, path);
    }
    if (shape instanceof Shape.Enumerated e) {
      return enumerated(e, node, path);
    }
    if (shape instanceof Shape.ListOf l) {
      JsonNode array = node.isTextual() ? parsed(node, "[") : node;
      if (!array.isArray()) {
        return wrong(shape, node, path);
      }
      ArrayNode out = NODES.arrayNode();
      for (int i = 0; i < array.size(); i++) {
        out.add(value(l.items(), array.get(i), path + "[" + i + "]"));
      }
      return out;
    }
    JsonNode object = node.isTextual() ? parsed(node, "{") : node;
    if (!object.isObject()) {
      return wrong(shape, node, path);
    }
    if (shape instanceof Shape.MapOf m) {
      ObjectNode out = NODES.objectNode();
      for (Map.Entry<String, JsonNode> e : object.properties()) {
        out.set(e.getKey(), value(m.values(), e.getValue(), path + "." + e.getKey()));
      }
      return out;
    }
    return fields((Shape.Fields) shape, (ObjectNode) object, path + ".");
  }

  /**
   * The fields of a record (or the parameters, at the top, where {@code prefix} is empty); an
   * optional field that is missing is set to {@code null}, so that Jackson binds it as
   * {@code Optional.empty()}.
   */
  private ObjectNode fields(Shape.Fields shape, ObjectNode object, String prefix) {
    ObjectNode out = NODES.objectNode();
    for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (shape.field(name) == null) {
        problem("unknown argument \"" + prefix + name + "\"; "
            + (prefix.isEmpty() ? "the arguments are " : "its fields are ")
            + (shape.fields().isEmpty() ? "none" : shape.names()));
      }
    }
    for (Field f : shape.fields()) {
      JsonNode v = object.get(f.name());
      if (v == null || v.isNull()) {
        if (f.required()) {
          problem("missing required argument \"" + prefix + f.name() + "\" ("
              + f.shape().words() + ")");
        }
        out.putNull(f.name());
      } else {
        out.set(f.name(), value(f.shape(), v, prefix + f.name()));
      }
    }
    return out;
  }

  private JsonNode scalar(Scalar s, JsonNode node, String path) {
    switch (s.kind()) {
      case STRING:
        if (node.isTextual()) {
          return formatted(s, node, path);
        }
        if (s.format() == null && (node.isNumber() || node.isBoolean())) {
          return NODES.textNode(node.asText());
        }
        return wrong(s, node, path);
      case CHARACTER:
        return node.isTextual() && node.asText().length() == 1 ? node : wrong(s, node, path);
      case BOOLEAN:
        if (node.isBoolean()) {
          return node;
        }
        if (node.isTextual() && (node.asText().equals("true") || node.asText().equals("false"))) {
          return NODES.booleanNode(Boolean.parseBoolean(node.asText()));
        }
        return wrong(s, node, path);
      case NUMBER:
        BigDecimal d = decimal(node);
        return d != null ? NODES.numberNode(d) : wrong(s, node, path);
      default:
        return integer(s, node, path);
    }
  }

  private JsonNode integer(Scalar s, JsonNode node, String path) {
    BigDecimal d = decimal(node);
    BigInteger i = null;
    if (d != null) {
      try {
        i = d.toBigIntegerExact();
      } catch (ArithmeticException e) {
        i = null;
      }
    }
    if (i == null) {
      return wrong(s, node, path);
    }
    long[] range = switch (s.kind()) {
      case BYTE -> new long[] {Byte.MIN_VALUE, Byte.MAX_VALUE};
      case SHORT -> new long[] {Short.MIN_VALUE, Short.MAX_VALUE};
      case INT -> new long[] {Integer.MIN_VALUE, Integer.MAX_VALUE};
      case LONG -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE};
      default -> null;
    };
    if (range != null && (i.compareTo(BigInteger.valueOf(range[0])) < 0
        || i.compareTo(BigInteger.valueOf(range[1])) > 0)) {
      problem("argument \"" + path + "\" must be an integer from " + range[0] + " to "
          + range[1] + " (got " + shown(node) + ")");
      return node;
    }
    return NODES.numberNode(i);
  }

  /** A number, or a string that is one; else {@code null}. */
  private static BigDecimal decimal(JsonNode node) {
    if (node.isNumber()) {
      return node.isFloatingPointNumber() && !Double.isFinite(node.asDouble()) ? null
          : node.decimalValue();
    }
    if (node.isTextual()) {
      try {
        return new BigDecimal(node.asText().strip());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  /** A string with a format (Instant, UUID, URI) must parse as one. */
  private JsonNode formatted(Scalar s, JsonNode node, String path) {
    if (s.format() == null) {
      return node;
    }
    try {
      switch (s.format()) {
        case "date-time" -> Instant.parse(node.asText());
        case "uuid" -> UUID.fromString(node.asText());
        default -> URI.create(node.asText());
      }
      return node;
    } catch (RuntimeException e) {
      return wrong(s, node, path);
    }
  }

  private JsonNode enumerated(Shape.Enumerated e, JsonNode node, String path) {
    if (node.isTextual()) {
      for (String v : e.values()) {
        if (v.equalsIgnoreCase(node.asText().strip())) {
          return NODES.textNode(v);
        }
      }
    }
    return wrong(e, node, path);
  }

  /** A list or object the model sent as a JSON string, parsed; else {@code node}. */
  private static JsonNode parsed(JsonNode node, String start) {
    String text = node.asText().strip();
    if (!text.startsWith(start)) {
      return node;
    }
    try {
      return BindingJson.MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      return node;
    }
  }

  private JsonNode wrong(Shape shape, JsonNode node, String path) {
    problem("argument \"" + path + "\" must be " + shape.words() + " (got " + shown(node) + ")");
    return node;
  }

  /** The value as JSON, cut to a length an error message can carry. */
  static String shown(JsonNode node) {
    String text = node.toString();
    return text.length() <= MAX_SHOWN ? text : text.substring(0, MAX_SHOWN) + "…";
  }
}
