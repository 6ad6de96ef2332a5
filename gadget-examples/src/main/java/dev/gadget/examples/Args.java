package dev.gadget.examples;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A parsed command line: {@code --name value}, {@code --name=value}, flags ({@code --name}),
 * positional arguments, and {@code --} to end the options. Pure; tested on literal input.
 */
final class Args {
  private final Map<String, String> values;
  private final List<String> positional;

  private Args(Map<String, String> values, List<String> positional) {
    this.values = values;
    this.positional = positional;
  }

  /**
   * Parses {@code argv} against the options a command declares. {@code --help} and {@code -h}
   * are always accepted.
   *
   * @throws UsageException for an unknown option, a missing value, a value given to a flag, or
   *     an option given twice
   */
  static Args parse(List<OptionSpec> specs, List<String> argv) {
    Map<String, OptionSpec> byName = new LinkedHashMap<>();
    for (OptionSpec s : specs) {
      byName.put(s.name(), s);
    }
    Map<String, String> values = new LinkedHashMap<>();
    List<String> positional = new ArrayList<>();
    boolean options = true;
    for (int i = 0; i < argv.size(); i++) {
      String a = argv.get(i);
      if (options && a.equals("--")) {
        options = false;
        continue;
      }
      if (options && (a.equals("-h") || a.equals("--help"))) {
        values.put("help", "true");
        continue;
      }
      if (!options || !a.startsWith("-") || a.equals("-")) {
        positional.add(a);
        continue;
      }
      if (!a.startsWith("--")) {
        throw new UsageException("unknown option " + a + " (options start with --)");
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      OptionSpec spec = byName.get(name);
      if (spec == null) {
        throw new UsageException("unknown option --" + name);
      }
      if (values.containsKey(name)) {
        throw new UsageException("--" + name + " is given twice");
      }
      if (spec.isFlag()) {
        if (value != null) {
          throw new UsageException("--" + name + " takes no value");
        }
        value = "true";
      } else if (value == null) {
        if (i + 1 >= argv.size()) {
          throw new UsageException("--" + name + " needs a value (" + spec.valueName() + ")");
        }
        value = argv.get(++i);
      }
      values.put(name, value);
    }
    return new Args(values, List.copyOf(positional));
  }

  /** Whether {@code --help} was asked for. */
  boolean help() {
    return values.containsKey("help");
  }

  /** The value of an option, if given. */
  Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name));
  }

  /** The value of an option, or {@code fallback}. */
  String get(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  /** Whether a flag was given. */
  boolean flag(String name) {
    return values.containsKey(name);
  }

  /**
   * A port number option, or {@code fallback}.
   *
   * @throws UsageException if it is not a number from 0 to 65535
   */
  int port(String name, int fallback) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      int p = Integer.parseInt(v);
      if (p >= 0 && p <= 65535) {
        return p;
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw new UsageException("--" + name + " must be a port number from 0 to 65535, not '" + v
        + "'");
  }

  /**
   * A duration option given in seconds (a whole or decimal number above 0, at most a day), or
   * {@code fallback}.
   *
   * @throws UsageException if it is not such a number
   */
  java.time.Duration seconds(String name, java.time.Duration fallback) {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      double s = Double.parseDouble(v);
      if (s > 0 && s <= 86_400 && v.matches("[0-9]*\\.?[0-9]+")) {
        return java.time.Duration.ofMillis(Math.max(1, Math.round(s * 1000)));
      }
    } catch (NumberFormatException e) {
      // fall through
    }
    throw new UsageException("--" + name + " must be a number of seconds above 0 and at most "
        + "86400 (a day), not '" + v + "'");
  }

  /** The positional arguments, in order. */
  List<String> positional() {
    return positional;
  }
}
