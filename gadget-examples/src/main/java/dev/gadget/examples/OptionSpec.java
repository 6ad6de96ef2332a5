package dev.gadget.examples;

import java.util.Objects;

/**
 * One option a command accepts, for parsing and for {@code --help}.
 *
 * @param name the option's name without the leading dashes, such as {@code "port"}
 * @param valueName what its value is, for the help text, or {@code null} for a flag
 * @param description one line of help
 */
record OptionSpec(String name, String valueName, String description) {
  OptionSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
  }

  static OptionSpec value(String name, String valueName, String description) {
    return new OptionSpec(name, valueName, description);
  }

  static OptionSpec flag(String name, String description) {
    return new OptionSpec(name, null, description);
  }

  boolean isFlag() {
    return valueName == null;
  }
}
