package dev.gadget.core.agent.tools.annotations;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.tools.annotations.Shape.Field;
import dev.gadget.core.agent.tools.annotations.Shape.Scalar;
import dev.gadget.core.agent.tools.annotations.Shape.Scalar.Kind;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.AnnotatedType;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Works out the {@link Shape} of a Java type, refusing the types it cannot offer the model with an
 * {@link IllegalArgumentException} that says where the type was and what would work instead.
 */
final class Shapes {
  static final String SUPPORTED = "use a String, a number, a boolean, an enum, a record, "
      + "Instant, UUID, URI, a List, Set or array of those, a Map with String keys, JsonNode, "
      + "or Optional of any of them";
  private static final Map<Class<?>, Kind> SCALARS = Map.ofEntries(
      Map.entry(String.class, Kind.STRING),
      Map.entry(char.class, Kind.CHARACTER), Map.entry(Character.class, Kind.CHARACTER),
      Map.entry(boolean.class, Kind.BOOLEAN), Map.entry(Boolean.class, Kind.BOOLEAN),
      Map.entry(byte.class, Kind.BYTE), Map.entry(Byte.class, Kind.BYTE),
      Map.entry(short.class, Kind.SHORT), Map.entry(Short.class, Kind.SHORT),
      Map.entry(int.class, Kind.INT), Map.entry(Integer.class, Kind.INT),
      Map.entry(long.class, Kind.LONG), Map.entry(Long.class, Kind.LONG),
      Map.entry(BigInteger.class, Kind.BIG_INTEGER),
      Map.entry(float.class, Kind.NUMBER), Map.entry(Float.class, Kind.NUMBER),
      Map.entry(double.class, Kind.NUMBER), Map.entry(Double.class, Kind.NUMBER),
      Map.entry(BigDecimal.class, Kind.NUMBER));

  /** The records being worked out, innermost last: a record that contains itself is refused. */
  private final Deque<Class<?>> records = new ArrayDeque<>();

  private Shapes() {}

  /**
   * The shape of a method parameter's or record component's type.
   *
   * @param type its generic type; {@code Optional<T>} is {@code T}'s shape
   * @param where what to name in an error: "parameter city of Weather.forecast"
   * @throws IllegalArgumentException when the type cannot be offered to the model
   */
  static Shape of(Type type, String where) {
    return new Shapes().shape(unwrapOptional(type), where);
  }

  /** {@code T} for {@code Optional<T>}, else {@code type}. */
  static Type unwrapOptional(Type type) {
    if (type instanceof ParameterizedType p && p.getRawType() == Optional.class) {
      return p.getActualTypeArguments()[0];
    }
    return type;
  }

  /** Whether {@code type} is {@code Optional} (raw or parameterized). */
  static boolean isOptional(Type type) {
    return type == Optional.class
        || type instanceof ParameterizedType p && p.getRawType() == Optional.class;
  }

  /**
   * Whether {@code element} or its type carries an annotation named {@code Nullable}, from any
   * library (JSpecify, Jakarta, JSR-305, ...), kept at run time.
   */
  static boolean isNullable(AnnotatedElement element, AnnotatedType type) {
    return hasNullable(element.getAnnotations()) || hasNullable(type.getAnnotations());
  }

  private static boolean hasNullable(Annotation[] annotations) {
    for (Annotation a : annotations) {
      if (a.annotationType().getSimpleName().equals("Nullable")) {
        return true;
      }
    }
    return false;
  }

  private Shape shape(Type type, String where) {
    if (type instanceof WildcardType w && w.getUpperBounds().length == 1
        && w.getLowerBounds().length == 0) {
      return shape(w.getUpperBounds()[0], where);
    }
    if (type instanceof GenericArrayType a) {
      return new Shape.ListOf(element(a.getGenericComponentType(), where), false);
    }
    if (type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw) {
      Type[] args = p.getActualTypeArguments();
      if (raw == List.class || raw == Collection.class || raw == Set.class) {
        return new Shape.ListOf(element(args[0], where), raw == Set.class);
      }
      if (raw == Map.class) {
        if (args[0] != String.class) {
          throw refused(where, type, "a Map's keys must be Strings");
        }
        return new Shape.MapOf(element(args[1], where));
      }
      if (raw == Optional.class) {
        throw refused(where, type, "Optional is allowed only around a parameter's or a "
            + "record component's whole type");
      }
      throw refused(where, type, SUPPORTED);
    }
    if (!(type instanceof Class<?> c)) {
      throw refused(where, type, "the type must be known at run time, not a type variable; "
          + SUPPORTED);
    }
    Kind kind = SCALARS.get(c);
    if (kind != null) {
      return new Scalar(kind);
    }
    if (c == Instant.class) {
      return new Scalar(Kind.STRING, "date-time", "a date and time such as 2026-04-29T19:30:00Z");
    }
    if (c == UUID.class) {
      return new Scalar(Kind.STRING, "uuid", "a UUID");
    }
    if (c == URI.class) {
      return new Scalar(Kind.STRING, "uri", "a URI");
    }
    if (c == JsonNode.class) {
      return new Shape.Any();
    }
    if (c.isEnum()) {
      return new Shape.Enumerated(c, BindingJson.enumValues(c));
    }
    if (c.isArray()) {
      return new Shape.ListOf(element(c.getComponentType(), where), false);
    }
    if (c.isRecord()) {
      return record(c, where);
    }
    if (List.class == c || Set.class == c || Collection.class == c || Map.class == c) {
      throw refused(where, type, "give its element type, such as List<String>");
    }
    if (Optional.class == c) {
      throw refused(where, type, "give its element type, such as Optional<String>");
    }
    throw refused(where, type, SUPPORTED);
  }

  /** An element of a list or map: never optional. */
  private Shape element(Type type, String where) {
    if (isOptional(type)) {
      throw refused(where, type, "a list or map cannot hold Optional values");
    }
    return shape(type, where);
  }

  private Shape record(Class<?> type, String where) {
    if (records.contains(type)) {
      throw refused(where, type, "record " + type.getSimpleName()
          + " contains itself, which a tool's arguments cannot describe");
    }
    records.addLast(type);
    try {
      List<Field> fields = new ArrayList<>();
      for (RecordComponent rc : type.getRecordComponents()) {
        String at = "component " + rc.getName() + " of record " + type.getName();
        ToolParam param = rc.getAnnotation(ToolParam.class);
        if (param != null && !param.name().isEmpty()) {
          throw new IllegalArgumentException(at + ": @ToolParam(name = ...) renames method "
              + "parameters only; rename a record component with @JsonProperty");
        }
        String name = jsonName(type, rc);
        boolean required = required(rc.getGenericType(), param,
            isNullable(rc, rc.getAnnotatedType()), at);
        fields.add(new Field(name, param != null ? param.value() : "", required,
            shape(unwrapOptional(rc.getGenericType()), at)));
      }
      return new Shape.Fields(List.copyOf(fields));
    } finally {
      records.removeLast();
    }
  }

  /**
   * A component's name in JSON: Jackson's {@code @JsonProperty} does not target record components,
   * so javac puts it on the field and the accessor.
   */
  private static String jsonName(Class<?> type, RecordComponent rc) {
    JsonProperty renamed = rc.getAccessor().getAnnotation(JsonProperty.class);
    if (renamed == null) {
      try {
        renamed = type.getDeclaredField(rc.getName()).getAnnotation(JsonProperty.class);
      } catch (NoSuchFieldException e) {
        renamed = null;
      }
    }
    return renamed != null && !renamed.value().isEmpty() ? renamed.value() : rc.getName();
  }

  /**
   * Whether the model must give a value: not for {@code Optional}, {@code @Nullable} or
   * {@code @ToolParam(required = false)}, which a primitive cannot be.
   */
  static boolean required(Type type, ToolParam param, boolean nullable, String where) {
    boolean optional = isOptional(type) || nullable || param != null && !param.required();
    if (optional && type instanceof Class<?> c && c.isPrimitive()) {
      throw new IllegalArgumentException(where + " is the primitive " + c.getName()
          + ", which cannot be left out; use " + boxed(c) + " or Optional<" + boxed(c) + ">");
    }
    return !optional;
  }

  private static String boxed(Class<?> primitive) {
    return primitive == int.class ? "Integer"
        : primitive == char.class ? "Character"
        : Character.toUpperCase(primitive.getName().charAt(0)) + primitive.getName().substring(1);
  }

  private static IllegalArgumentException refused(String where, Type type, String why) {
    return new IllegalArgumentException(where + " has the type " + type.getTypeName()
        + ", which a tool cannot take: " + why);
  }
}
