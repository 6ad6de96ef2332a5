package dev.gadget.core.agent.tools.annotations;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Describes a parameter of a {@link ToolMethod}, or a component of a record that one takes, for
 * the model: the description goes into the JSON schema.
 *
 * <p>A parameter or component is required unless its type is {@code Optional<T>}, it carries an
 * annotation named {@code Nullable} kept at run time (JSpecify's, Jakarta's, ...), or
 * {@link #required()} is {@code false}; one that the model leaves out is {@code Optional.empty()}
 * or {@code null}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PARAMETER, ElementType.RECORD_COMPONENT})
public @interface ToolParam {
  /** What the value means, its unit and its limits, for the model. */
  String value() default "";

  /**
   * The parameter's name in the arguments. By default its name in the source, which the class
   * file has only when compiled with {@code javac -parameters}; without it every parameter needs
   * a name here. Record components always have their names (rename one with Jackson's
   * {@code @JsonProperty}); this must stay empty on them.
   */
  String name() default "";

  /** {@code false} to let the model leave the value out ({@code null}); not for primitives. */
  boolean required() default true;
}
