package dev.gadget.core.agent.tools.annotations;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.tools.annotations.ArgumentCheck.ArgumentsRefused;
import dev.gadget.core.agent.tools.annotations.Shape.Field;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Tool} that calls an annotated method: checks the model's arguments against the
 * parameters' shapes, binds them with Jackson, calls the method and turns what it returned or
 * threw into the result the model reads. Immutable; thread-safe if the method is.
 */
final class MethodTool implements Tool {
  /** A result longer than this is cut, so that one call cannot flood the model's context. */
  static final int MAX_RESULT_CHARS = 100_000;
  private static final Logger log = LoggerFactory.getLogger(MethodTool.class);

  private final String name;
  private final String description;
  private final Object target;
  private final Method method;
  private final Shape.Fields parameters;
  private final JsonNode schema;
  private final List<Slot> slots;

  /**
   * What goes into one of the method's parameters: the tool context, or the argument
   * {@code field} read by {@code reader}, wrapped in an {@code Optional} if {@code optional}.
   */
  private record Slot(Field field, ObjectReader reader, boolean optional) {}

  private MethodTool(String name, String description, Object target, Method method,
      Shape.Fields parameters, List<Slot> slots) {
    this.name = name;
    this.description = description;
    this.target = target;
    this.method = method;
    this.parameters = parameters;
    this.schema = parameters.schema();
    this.slots = List.copyOf(slots);
  }

  /**
   * The tool for {@code method}, called on {@code target}.
   *
   * @throws IllegalArgumentException when the method cannot be a tool, saying why
   */
  static MethodTool of(String name, String description, Object target, Method method) {
    String where = method.getDeclaringClass().getName() + "." + method.getName();
    if (!method.trySetAccessible()) {
      throw new IllegalArgumentException("cannot call " + where + ": make it and its class "
          + "public in an exported package, or open the package to dev.gadget.core");
    }
    List<Field> fields = new ArrayList<>();
    List<Slot> slots = new ArrayList<>();
    for (Parameter p : method.getParameters()) {
      if (p.getType() == ToolContext.class) {
        slots.add(new Slot(null, null, false));
        continue;
      }
      ToolParam param = p.getAnnotation(ToolParam.class);
      boolean named = param != null && !param.name().isEmpty();
      if (!named && !p.isNamePresent()) {
        throw new IllegalArgumentException(where + ": the names of its parameters were not "
            + "compiled in; compile with javac -parameters, or name each parameter with "
            + "@ToolParam(name = ...)");
      }
      String pname = named ? param.name() : p.getName();
      if (fields.stream().anyMatch(f -> f.name().equals(pname))) {
        throw new IllegalArgumentException(where + " has two parameters named " + pname);
      }
      String at = "parameter " + pname + " of " + where;
      Type type = p.getParameterizedType();
      boolean required = Shapes.required(type, param,
          Shapes.isNullable(p, p.getAnnotatedType()), at);
      Field field = new Field(pname, param != null ? param.value() : "", required,
          Shapes.of(type, at));
      fields.add(field);
      slots.add(new Slot(field, BindingJson.MAPPER.readerFor(
          BindingJson.type(Shapes.unwrapOptional(type))), Shapes.isOptional(type)));
    }
    Object receiver = Modifier.isStatic(method.getModifiers()) ? null : target;
    return new MethodTool(name, description, receiver, method,
        new Shape.Fields(List.copyOf(fields)), slots);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public JsonNode parameters() {
    return schema.deepCopy();
  }

  @Override
  public ToolResult execute(JsonNode arguments, ToolContext context) throws Exception {
    if (!arguments.isObject()) {
      return ToolResult.error("the arguments of " + name + " must be a JSON object");
    }
    ObjectNode checked;
    try {
      checked = ArgumentCheck.check(parameters, (ObjectNode) arguments);
    } catch (ArgumentsRefused e) {
      return ToolResult.error(e.getMessage());
    }
    Object[] values = new Object[slots.size()];
    for (int i = 0; i < values.length; i++) {
      Slot slot = slots.get(i);
      if (slot.field() == null) {
        values[i] = context;
        continue;
      }
      JsonNode v = checked.get(slot.field().name());
      Object bound;
      try {
        bound = v.isNull() ? null : bind(slot, v);
      } catch (ArgumentsRefused e) {
        return ToolResult.error(e.getMessage());
      }
      values[i] = slot.optional() ? Optional.ofNullable(bound) : bound;
    }
    Object out;
    try {
      out = method.invoke(target, values);
    } catch (InvocationTargetException e) {
      return failed(e.getCause());
    }
    return result(out);
  }

  /** Binds one argument, or says in the model's terms why Jackson could not. */
  private Object bind(Slot slot, JsonNode value) {
    try {
      return slot.reader().readValue(value);
    } catch (IOException e) {
      StringBuilder path = new StringBuilder(slot.field().name());
      Shape shape = slot.field().shape();
      List<JsonMappingException.Reference> refs = e instanceof JsonMappingException m
          ? m.getPath() : List.of();
      for (JsonMappingException.Reference r : refs) {
        if (r.getFieldName() != null) {
          path.append('.').append(r.getFieldName());
          shape = shape instanceof Shape.Fields f && f.field(r.getFieldName()) != null
              ? f.field(r.getFieldName()).shape()
              : shape instanceof Shape.MapOf m ? m.values() : shape;
        } else if (r.getIndex() >= 0) {
          path.append('[').append(r.getIndex()).append(']');
          shape = shape instanceof Shape.ListOf l ? l.items() : shape;
        }
      }
      Throwable cause = e.getCause();
      if (cause != null && !(cause instanceof JsonProcessingException)) {
        // A record's constructor refused the value: its message is written for people.
        throw new ArgumentsRefused(List.of("argument \"" + path + "\" was refused: "
            + describe(cause)));
      }
      log.debug("tool {}: Jackson could not bind argument {}", name, path, e);
      throw new ArgumentsRefused(List.of("argument \"" + path + "\" could not be read as "
          + shape.words()));
    }
  }

  private ToolResult failed(Throwable thrown) throws Exception {
    if (thrown instanceof ToolException || thrown instanceof InterruptedException) {
      throw (Exception) thrown;
    }
    if (thrown instanceof Error error) {
      throw error;
    }
    log.debug("tool {} threw", name, thrown);
    return ToolResult.error(name + " failed: " + describe(thrown));
  }

  private static String describe(Throwable t) {
    String message = t.getMessage();
    return message != null && !message.isBlank() ? message
        : "an unexpected " + t.getClass().getSimpleName();
  }

  private ToolResult result(Object out) {
    Class<?> returns = method.getReturnType();
    if (returns == void.class || returns == Void.class) {
      return ToolResult.ok("done");
    }
    if (out instanceof ToolResult r) {
      return r;
    }
    if (out == null && returns == ToolResult.class) {
      return null; // the loop tells the model that the tool returned no result
    }
    String text;
    if (out instanceof CharSequence cs) {
      text = cs.toString();
    } else {
      try {
        text = BindingJson.MAPPER.writeValueAsString(out);
      } catch (JsonProcessingException e) {
        log.debug("tool {}: cannot write its result as JSON", name, e);
        return ToolResult.error(name + " returned a " + out.getClass().getSimpleName()
            + " that could not be written as JSON");
      }
    }
    return ToolResult.ok(capped(text));
  }

  private static String capped(String text) {
    if (text.length() <= MAX_RESULT_CHARS) {
      return text;
    }
    int end = Character.isHighSurrogate(text.charAt(MAX_RESULT_CHARS - 1))
        ? MAX_RESULT_CHARS - 1 : MAX_RESULT_CHARS;
    return text.substring(0, end) + "\n[" + (text.length() - end)
        + " more characters cut: the result was too long]";
  }

  @Override
  public String toString() {
    return "MethodTool[" + name + " -> " + method.getDeclaringClass().getName() + "."
        + method.getName() + "]";
  }
}
