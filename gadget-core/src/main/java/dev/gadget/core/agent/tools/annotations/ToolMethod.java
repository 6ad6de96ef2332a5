package dev.gadget.core.agent.tools.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a method a {@link dev.gadget.core.agent.Tool}: {@link MethodTools#from(Object)} turns each
 * annotated method of an object into a tool whose JSON schema comes from the method's parameters.
 *
 * <pre>{@code
 * class Weather {
 *   @ToolMethod("The forecast for a city, day by day")
 *   List<Day> forecast(@ToolParam("The city's name") String city,
 *                      @ToolParam("How many days, 1 to 7") Optional<Integer> days,
 *                      Unit unit) { ... }
 * }
 * List<Tool> tools = MethodTools.from(new Weather());   // one tool, named "forecast"
 * }</pre>
 *
 * <p>The method may be static or not, of any visibility (see {@link MethodTools} for the module
 * system), and may take a {@link dev.gadget.core.agent.ToolContext} parameter, which is not offered
 * to the model. {@link ToolParam} describes the other parameters.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ToolMethod {
  /** What the tool does and when to use it, for the model. Must not be blank. */
  String value();

  /**
   * The name the model calls the tool by: letters, digits, {@code _} and {@code -}, at most 64.
   * By default the method's name in snake case: {@code findUsages} becomes {@code find_usages}.
   */
  String name() default "";
}
