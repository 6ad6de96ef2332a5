package dev.gadget.core.protocol;

import java.util.regex.Pattern;

/** Words of Jackson and Java that must never reach a person in an error message. */
public final class JavaWords {
  private JavaWords() {}

  /** Matches any of them, case-insensitively. */
  public static final Pattern PATTERN = Pattern.compile("(?i)jsontoken|dev\\.gadget|java\\."
      + "|javax\\.|fasterxml|jackson|cannot deserialize|cannot construct|exception|`|\\[source"
      + "|line: \\d|column: \\d|instance of|value_(true|false|number|string)"
      + "|start_(object|array)|mismatched|coerc");
}
