package dev.gadget.core.agent.tools.annotations;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What a Java type looks like to the model: the JSON schema it is offered, and the words an error
 * uses for it. Built once per tool by {@link Shapes}; immutable.
 */
sealed interface Shape {
  /** The JSON schema of a value of this shape. */
  ObjectNode schema();

  /** The shape in words, for an error: "a string", "an integer", "one of "C", "F"". */
  String words();

  /** A string, a number, an integer or a boolean; {@code format} is a JSON-schema format. */
  record Scalar(Kind kind, String format, String formatWords) implements Shape {
    /** The JSON kinds of a scalar, with the range of the Java type for integers. */
    enum Kind {
      STRING("string", "a string"), CHARACTER("string", "a single character"),
      BOOLEAN("boolean", "true or false"), NUMBER("number", "a number"),
      BYTE("integer", "an integer"), SHORT("integer", "an integer"),
      INT("integer", "an integer"), LONG("integer", "an integer"),
      BIG_INTEGER("integer", "an integer");

      final String jsonType;
      final String words;

      Kind(String jsonType, String words) {
        this.jsonType = jsonType;
        this.words = words;
      }
    }

    Scalar(Kind kind) {
      this(kind, null, null);
    }

    @Override
    public ObjectNode schema() {
      ObjectNode s = GadgetJson.mapper().createObjectNode().put("type", kind.jsonType);
      if (kind == Kind.CHARACTER) {
        s.put("minLength", 1).put("maxLength", 1);
      }
      if (format != null) {
        s.put("format", format);
      }
      return s;
    }

    @Override
    public String words() {
      return formatWords != null ? formatWords : kind.words;
    }
  }

  /** An enum: a string among {@code values}, as Jackson writes the constants. */
  record Enumerated(Class<?> type, List<String> values) implements Shape {
    @Override
    public ObjectNode schema() {
      ObjectNode s = GadgetJson.mapper().createObjectNode().put("type", "string");
      values.forEach(s.putArray("enum")::add);
      return s;
    }

    @Override
    public String words() {
      return "one of " + values.stream().map(v -> "\"" + v + "\"")
          .collect(Collectors.joining(", "));
    }
  }

  /** A list, set or array. */
  record ListOf(Shape items, boolean unique) implements Shape {
    @Override
    public ObjectNode schema() {
      ObjectNode s = GadgetJson.mapper().createObjectNode().put("type", "array");
      s.set("items", items.schema());
      if (unique) {
        s.put("uniqueItems", true);
      }
      return s;
    }

    @Override
    public String words() {
      return "a list (a JSON array)";
    }
  }

  /** A map with string keys: a JSON object with any keys. */
  record MapOf(Shape values) implements Shape {
    @Override
    public ObjectNode schema() {
      ObjectNode s = GadgetJson.mapper().createObjectNode().put("type", "object");
      s.set("additionalProperties", values.schema());
      return s;
    }

    @Override
    public String words() {
      return "an object";
    }
  }

  /** A record, or a method's parameters: a JSON object with named fields. */
  record Fields(List<Field> fields) implements Shape {
    @Override
    public ObjectNode schema() {
      ObjectNode s = GadgetJson.mapper().createObjectNode().put("type", "object");
      ObjectNode properties = s.putObject("properties");
      var required = s.putArray("required");
      for (Field f : fields) {
        ObjectNode p = f.shape().schema();
        if (!f.description().isEmpty()) {
          p.put("description", f.description());
        }
        properties.set(f.name(), p);
        if (f.required()) {
          required.add(f.name());
        }
      }
      s.put("additionalProperties", false);
      return s;
    }

    @Override
    public String words() {
      return "an object with the fields " + names();
    }

    /** The field named {@code name}, or {@code null}. */
    Field field(String name) {
      return fields.stream().filter(f -> f.name().equals(name)).findFirst().orElse(null);
    }

    /** The fields' names, separated by commas. */
    String names() {
      return fields.stream().map(Field::name).collect(Collectors.joining(", "));
    }
  }

  /** A {@code JsonNode}: any JSON value. */
  record Any() implements Shape {
    @Override
    public ObjectNode schema() {
      return GadgetJson.mapper().createObjectNode();
    }

    @Override
    public String words() {
      return "any JSON value";
    }
  }

  /**
   * A field of a record or a parameter of a method.
   *
   * @param name its name in JSON
   * @param description for the model; may be empty
   * @param required whether the model must give it ({@code Optional} and nullable ones need not)
   * @param shape its shape ({@code Optional<T>}'s is {@code T}'s)
   */
  record Field(String name, String description, boolean required, Shape shape) {}
}
