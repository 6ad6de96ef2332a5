package dev.gadget.core.protocol;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.gadget.core.GadgetJson;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads a payload record from an event's argument, strictly: every field is checked against its
 * Java type and its {@link Rule} before Jackson builds the record, so that a wrong type, a
 * missing field or a value too long is refused with the field's name and what was expected, in
 * people's words. Nothing is coerced: a number where a string belongs, an enum's ordinal, a
 * string where a number belongs are all refused. Unknown fields are ignored (newer peers may add
 * some), and a missing field that no {@link Rule} requires takes its default (null, 0, false):
 * older peers leave out what was added after them.
 */
final class PayloadReader {
  private static final ObjectMapper STRICT = strictMapper();
  /** A reader per payload type: its type and deserializer are looked up once, not per event. */
  private static final ClassValue<ObjectReader> READERS = new ClassValue<>() {
    @Override
    protected ObjectReader computeValue(Class<?> type) {
      return STRICT.readerFor(type);
    }
  };
  private static final int SHOWN = 40;
  private static final Pattern SLUG = Pattern.compile(Limits.SLUG_PATTERN);

  /** A record component as the wire sees it: its JSON name, its type and its rule. */
  private record Component(String name, Type type, boolean primitive, Check rule) {}

  /**
   * A {@link Rule}'s values, read once: an annotation's methods are proxies that look the value
   * up by name on every call, and {@code oneOf()} copies its array.
   */
  private record Check(boolean required, boolean blankAllowed, int maxLength, boolean slug,
      List<String> oneOf) {
    static Check of(Rule r) {
      return r == null ? null : new Check(r.required(), r.blankAllowed(), r.maxLength(), r.slug(),
          List.of(r.oneOf()));
    }
  }

  /** Each record's components, worked out once per class (a drone's stream reads many). */
  private static final ClassValue<List<Component>> COMPONENTS = new ClassValue<>() {
    @Override
    protected List<Component> computeValue(Class<?> type) {
      List<Component> out = new ArrayList<>();
      for (RecordComponent rc : type.getRecordComponents()) {
        out.add(new Component(jsonName(rc), rc.getGenericType(), rc.getType().isPrimitive(),
            Check.of(rc.getAnnotation(Rule.class))));
      }
      return List.copyOf(out);
    }
  };

  /** Each enum's names on the wire, in declaration order. */
  private static final ClassValue<List<String>> ENUM_NAMES = new ClassValue<>() {
    @Override
    protected List<String> computeValue(Class<?> type) {
      List<String> names = new ArrayList<>();
      for (Object constant : type.getEnumConstants()) {
        String name = ((Enum<?>) constant).name();
        try {
          JsonProperty p = type.getField(name).getAnnotation(JsonProperty.class);
          names.add(p != null && !p.value().isEmpty() ? p.value() : name);
        } catch (NoSuchFieldException e) {
          names.add(name);
        }
      }
      return List.copyOf(names);
    }
  };

  private PayloadReader() {}

  static <T> T read(List<JsonNode> args, Class<T> type) {
    JsonNode root = args == null || args.isEmpty() ? null : args.get(0);
    if (root == null || !root.isObject()) {
      throw new PayloadException(null, "the payload must be a JSON object; got "
          + (root == null ? "nothing" : shown(root)));
    }
    if (type == Payloads.TextEvent.class) {
      Payloads.TextEvent e = textEvent(root);
      if (e != null) {
        return type.cast(e);
      }
    }
    if (type.isRecord()) {
      checkRecord(root, type, "");
    }
    try {
      return READERS.get(type).readValue(root);
    } catch (IOException | IllegalArgumentException e) {
      throw translate(e, type);
    }
  }

  /**
   * The stream's own event, one per token, made from the tree as Jackson would when it passes
   * every check {@link #checkRecord} makes: each field looked up once. Null when anything is
   * missing or wrong: the general path then says what.
   */
  private static Payloads.TextEvent textEvent(JsonNode root) {
    JsonNode turnId = root.get("turnId");
    JsonNode seq = root.get("seq");
    JsonNode data = root.get("data");
    JsonNode tokens = root.get("tokens");
    if (turnId == null || !turnId.isTextual() || seq == null || !seq.isIntegralNumber()
        || !seq.canConvertToLong() || data == null || !data.isTextual()
        || root.has("reasoning")) { // signed reasoning: the general path reads it
      return null;
    }
    boolean noTokens = tokens == null || tokens.isNull();
    if (!noTokens && !(tokens.isIntegralNumber() && tokens.canConvertToLong())) {
      return null;
    }
    String id = turnId.textValue();
    if (id.length() > Limits.ID || id.isBlank()) {
      return null;
    }
    return new Payloads.TextEvent(id, seq.longValue(), data.textValue(),
        noTokens ? null : tokens.longValue());
  }

  private static void checkRecord(JsonNode object, Class<?> type, String path) {
    for (Component c : COMPONENTS.get(type)) {
      String field = path.isEmpty() ? c.name : path + "." + c.name;
      JsonNode value = object.get(c.name);
      if (value == null || (value.isNull() && !c.primitive)) {
        if (c.rule != null && c.rule.required()) {
          throw new PayloadException(field, quoted(field) + " is required");
        }
        continue;
      }
      checkValue(value, c.type, field, c.rule);
    }
  }

  private static void checkValue(JsonNode v, Type type, String field, Check rule) {
    Class<?> raw = raw(type);
    boolean ok;
    if (raw == String.class) {
      ok = v.isTextual();
    } else if (raw == long.class || raw == Long.class) {
      ok = v.isIntegralNumber() && v.canConvertToLong();
    } else if (raw == int.class || raw == Integer.class) {
      ok = v.isIntegralNumber() && v.canConvertToInt();
    } else if (raw == double.class || raw == Double.class) {
      ok = v.isNumber();
    } else if (raw == boolean.class || raw == Boolean.class) {
      ok = v.isBoolean();
    } else if (raw.isEnum()) {
      ok = v.isTextual() && enumNames(raw).contains(v.textValue());
    } else if (raw == Instant.class) {
      ok = v.isTextual() && isInstant(v.textValue());
    } else if (raw.isRecord() || Map.class.isAssignableFrom(raw)) {
      ok = v.isObject();
    } else if (Collection.class.isAssignableFrom(raw)) {
      ok = v.isArray();
    } else {
      return; // JsonNode, Object and other types take any JSON; Jackson reads them.
    }
    if (!ok) {
      throw new PayloadException(field, quoted(field) + " must be " + describe(raw) + "; got "
          + shown(v));
    }
    if (raw == String.class) {
      checkString(v.textValue(), field, rule, v);
    } else if (raw.isRecord()) {
      checkRecord(v, raw, field);
    } else if (Collection.class.isAssignableFrom(raw)) {
      Type element = type instanceof ParameterizedType p ? p.getActualTypeArguments()[0]
          : Object.class;
      for (int i = 0; i < v.size(); i++) {
        checkValue(v.get(i), element, field + "[" + i + "]", null);
      }
    }
  }

  /** What a value of {@code type} looks like, in people's words. */
  private static String describe(Class<?> type) {
    if (type == String.class) {
      return "a string";
    } else if (type == long.class || type == Long.class || type == int.class
        || type == Integer.class) {
      return "a whole number";
    } else if (type == double.class || type == Double.class) {
      return "a number";
    } else if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    } else if (type.isEnum()) {
      return oneOf(enumNames(type));
    } else if (type == Instant.class) {
      return "a time such as \"2026-04-29T19:30:00Z\"";
    } else if (Collection.class.isAssignableFrom(type)) {
      return "a list";
    }
    return "an object";
  }

  private static void checkString(String s, String field, Check rule, JsonNode v) {
    if (rule == null) {
      return;
    }
    if (rule.required() && !rule.blankAllowed() && s.isBlank()) {
      throw new PayloadException(field, quoted(field) + " must not be empty");
    }
    if (s.length() > rule.maxLength()) {
      throw new PayloadException(field, String.format(Locale.ROOT,
          "%s must be at most %,d characters; got %,d", quoted(field), rule.maxLength(),
          s.length()));
    }
    if (rule.slug() && (!SLUG.matcher(s).matches() || s.equals(".") || s.equals(".."))) {
      throw new PayloadException(field, quoted(field)
          + " must be letters, digits, \".\", \"_\" or \"-\" (a directory name); got " + shown(v));
    }
    if (!rule.oneOf().isEmpty() && !rule.oneOf().contains(s)) {
      throw new PayloadException(field, quoted(field) + " must be "
          + oneOf(rule.oneOf()) + "; got " + shown(v));
    }
  }

  /**
   * Jackson's failures after the checks above come from the records' own constructors (such as
   * a nested model record's {@code Objects.requireNonNull(x, "x")}); none of Jackson's wording
   * reaches the message.
   */
  private static PayloadException translate(Exception e, Class<?> type) {
    List<JsonMappingException.Reference> refs =
        e instanceof JsonMappingException m ? m.getPath() : List.of();
    String path = path(refs);
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root instanceof NullPointerException npe && npe.getMessage() != null
        && npe.getMessage().matches("[A-Za-z_][A-Za-z0-9_]*")) {
      String name = wireName(type, refs, npe.getMessage());
      String field = path.isEmpty() ? name : path + "." + name;
      return new PayloadException(field, quoted(field) + " is required");
    }
    String where = path.isEmpty() ? "the payload" : quoted(path);
    if (root instanceof IllegalArgumentException iae && root != e && iae.getMessage() != null
        && !(root.getClass().getName().startsWith("com.fasterxml"))) {
      return new PayloadException(path.isEmpty() ? null : path,
          where + " is not valid: " + cut(iae.getMessage(), 200));
    }
    return new PayloadException(path.isEmpty() ? null : path, where + " is not valid");
  }

  private static String path(List<JsonMappingException.Reference> refs) {
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference r : refs) {
      if (r.getFieldName() != null) {
        sb.append(sb.length() == 0 ? "" : ".").append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.toString();
  }

  /**
   * The JSON name of the component {@code component} of the record at {@code refs} below
   * {@code root} ({@code id} is {@code _id} on the wire).
   */
  private static String wireName(Class<?> root, List<JsonMappingException.Reference> refs,
      String component) {
    Type at = root;
    for (JsonMappingException.Reference r : refs) {
      Class<?> raw = raw(at);
      if (r.getFieldName() != null && raw.isRecord()) {
        at = Object.class;
        for (RecordComponent rc : raw.getRecordComponents()) {
          if (jsonName(rc).equals(r.getFieldName())) {
            at = rc.getGenericType();
          }
        }
      } else if (at instanceof ParameterizedType p && Collection.class.isAssignableFrom(raw)) {
        at = p.getActualTypeArguments()[0];
      }
    }
    if (raw(at).isRecord()) {
      for (RecordComponent rc : raw(at).getRecordComponents()) {
        if (rc.getName().equals(component)) {
          return jsonName(rc);
        }
      }
    }
    return component;
  }

  private static String jsonName(RecordComponent rc) {
    JsonProperty p = rc.getAccessor().getAnnotation(JsonProperty.class);
    return p != null && !p.value().isEmpty() ? p.value() : rc.getName();
  }

  private static List<String> enumNames(Class<?> type) {
    return ENUM_NAMES.get(type);
  }

  private static String oneOf(List<String> names) {
    StringBuilder sb = new StringBuilder("one of ");
    for (int i = 0; i < names.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append('"').append(names.get(i)).append('"');
    }
    return sb.toString();
  }

  private static boolean isInstant(String s) {
    try {
      Instant.parse(s);
      return true;
    } catch (DateTimeParseException e) {
      return false;
    }
  }

  private static Class<?> raw(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> c) {
      return c;
    }
    return Object.class;
  }

  /** A value as a person reads it: short strings quoted, long ones cut, containers named. */
  private static String shown(JsonNode v) {
    if (v.isTextual()) {
      String s = v.textValue();
      String json = GadgetJson.mapper().getNodeFactory().textNode(cut(s, SHOWN)).toString();
      return s.length() > SHOWN ? json + String.format(Locale.ROOT, " (%,d characters)",
          s.length()) : json;
    }
    if (v.isObject()) {
      return "an object";
    }
    if (v.isArray()) {
      return "a list";
    }
    return cut(v.toString(), SHOWN);
  }

  private static String cut(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }

  private static String quoted(String field) {
    return "\"" + field + "\"";
  }

  /**
   * Gadget's mapper that coerces nothing: the checks above already refused what it would
   * coerce; this is the second line.
   */
  private static ObjectMapper strictMapper() {
    // A missing number or boolean is its default (0, false): fields added after a payload first
    // shipped are optional. A required one has a Rule (checkRecord says "is required"), and an
    // explicit null is refused there too ("must be a whole number; got null").
    ObjectMapper m = GadgetJson.newMapper()
        .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
        .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    refuse(m, LogicalType.Textual, CoercionInputShape.Integer, CoercionInputShape.Float,
        CoercionInputShape.Boolean);
    refuse(m, LogicalType.Integer, CoercionInputShape.Float, CoercionInputShape.String,
        CoercionInputShape.Boolean);
    refuse(m, LogicalType.Float, CoercionInputShape.String, CoercionInputShape.Boolean);
    refuse(m, LogicalType.Boolean, CoercionInputShape.Integer, CoercionInputShape.Float,
        CoercionInputShape.String);
    refuse(m, LogicalType.Enum, CoercionInputShape.Integer, CoercionInputShape.Float,
        CoercionInputShape.Boolean);
    return m;
  }

  private static void refuse(ObjectMapper m, LogicalType type, CoercionInputShape... shapes) {
    for (CoercionInputShape shape : shapes) {
      m.coercionConfigFor(type).setCoercion(shape, CoercionAction.Fail);
    }
  }
}
