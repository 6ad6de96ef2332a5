package dev.gadget.core.agent.tools.annotations;

import dev.gadget.core.agent.Tool;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns the {@link ToolMethod}-annotated methods of an object into {@link Tool}s.
 *
 * <p><b>Schema.</b> Each tool's {@code parameters()} is a JSON schema object with one property per
 * method parameter (a {@link dev.gadget.core.agent.ToolContext} parameter excepted), described by
 * {@link ToolParam}: {@code String} and {@code char} are strings, numbers are {@code integer} or
 * {@code number}, {@code boolean} is {@code boolean}, an enum is a string with {@code enum} values
 * (as Jackson writes them), a record is an object with its components as properties, a
 * {@code List}, {@code Set} or array is an array, a {@code Map<String, V>} is an object, and
 * {@code Instant}, {@code UUID} and {@code URI} are strings with a {@code format}; a
 * {@code JsonNode} takes any value. {@code Optional} parameters and components are not required.
 * Unknown properties are refused ({@code additionalProperties: false}).
 *
 * <p><b>Calls.</b> The model's arguments are checked against the schema first, and every problem
 * goes back to the model as the tool's error result, in its terms ({@code argument "days" must be
 * an integer (got "seven")}); numbers or booleans sent as strings, {@code 3.0} for an integer, an
 * enum constant in another case and a list or object sent as a JSON string are accepted. Then each
 * argument is bound with Jackson (Gadget's {@link dev.gadget.core.GadgetJson} configuration, plus
 * {@code Optional}), and the method is called on the loop's thread. A record whose constructor
 * throws refuses the argument with the exception's message.
 *
 * <p><b>Results.</b> A {@code String} goes to the model as it is, a
 * {@link dev.gadget.core.agent.ToolResult} as it is, {@code void} as {@code "done"}, anything else
 * as JSON; a text over 100,000 characters is cut, saying so. A
 * {@link dev.gadget.core.agent.ToolException} or any other exception the method throws becomes an
 * error result with its message ({@code forecast failed: no such city}); the turn goes on. An
 * {@code InterruptedException} means the turn was cancelled.
 *
 * <p><b>Access.</b> Methods of any visibility work on the class path. In a named module, make the
 * method and its class public in an exported package, or {@code opens} the package to
 * {@code dev.gadget.core}; Jackson needs the same for records it binds.
 *
 * <p>The tools are immutable and as thread-safe as the methods they call: one loop may run several
 * turns at once.
 */
public final class MethodTools {
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private MethodTools() {}

  /**
   * The tools of {@code target}: one per method annotated with {@link ToolMethod}, declared by its
   * class or a superclass, static or not, sorted by name.
   *
   * @throws IllegalArgumentException if it has no such method, or one cannot be a tool (a
   *     parameter type with no JSON schema, parameter names not compiled in, a name used twice, a
   *     blank description, ...): the message says which and what to do
   */
  public static List<Tool> from(Object target) {
    Objects.requireNonNull(target, "target");
    List<Tool> tools = new ArrayList<>();
    Set<String> signatures = new HashSet<>();
    Set<String> names = new HashSet<>();
    for (Class<?> c = target.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        ToolMethod annotation = m.getAnnotation(ToolMethod.class);
        if (annotation == null || m.isBridge() || m.isSynthetic()
            || !signatures.add(m.getName() + List.of(m.getParameterTypes()))) {
          continue;
        }
        String where = c.getName() + "." + m.getName();
        String name = annotation.name().isEmpty() ? snakeCase(m.getName()) : annotation.name();
        if (!NAME.matcher(name).matches()) {
          throw new IllegalArgumentException(where + ": \"" + name + "\" cannot be a tool's "
              + "name; use letters, digits, _ and -, at most 64");
        }
        if (!names.add(name)) {
          throw new IllegalArgumentException(where + ": another method of "
              + target.getClass().getName() + " is already the tool " + name
              + "; name one with @ToolMethod(name = ...)");
        }
        if (annotation.value().isBlank()) {
          throw new IllegalArgumentException(where + ": @ToolMethod needs a description for the "
              + "model");
        }
        tools.add(MethodTool.of(name, annotation.value().strip(), target, m));
      }
    }
    if (tools.isEmpty()) {
      throw new IllegalArgumentException(target.getClass().getName()
          + " has no method annotated @ToolMethod");
    }
    tools.sort(Comparator.comparing(Tool::name));
    return List.copyOf(tools);
  }

  /** {@code findUsages} → {@code find_usages}, {@code readURL} → {@code read_url}. */
  static String snakeCase(String name) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isUpperCase(c) && i > 0) {
        char before = name.charAt(i - 1);
        boolean nextLower = i + 1 < name.length() && Character.isLowerCase(name.charAt(i + 1));
        if (Character.isLowerCase(before) || Character.isDigit(before)
            || Character.isUpperCase(before) && nextLower) {
          out.append('_');
        }
      }
      out.append(Character.toLowerCase(c));
    }
    return out.toString();
  }
}
