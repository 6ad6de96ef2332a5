package dev.gadget.core.protocol;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How {@link Protocol#payload} checks one field of a payload record beyond its type: whether it
 * must be there (a required string must not be blank either, unless it says so), its longest
 * length, and for a string the values it may take.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
@interface Rule {
  /** The field must be present and not {@code null}; a string must not be blank either. */
  boolean required() default false;

  /** A required string may be blank (a stream's whitespace token). */
  boolean blankAllowed() default false;

  /** The longest string taken, in UTF-16 code units. */
  int maxLength() default Integer.MAX_VALUE;

  /** The string must be a slug ({@link Limits#SLUG_PATTERN}, and neither "." nor ".."). */
  boolean slug() default false;

  /** The only strings taken, when not empty. */
  String[] oneOf() default {};
}
