package dev.gadget.examples;

import java.io.PrintStream;
import java.util.Map;
import java.util.Objects;

/**
 * Where a command prints and what environment it reads (so tests can pass their own).
 *
 * @param out what a person should read
 * @param err problems
 * @param env the environment variables
 */
record Console(PrintStream out, PrintStream err, Map<String, String> env) {
  Console {
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(err, "err");
    env = Map.copyOf(env);
  }

  static Console system() {
    return new Console(System.out, System.err, System.getenv());
  }

  /** An environment variable, or {@code null} when unset or blank. */
  String env(String name) {
    String v = env.get(name);
    return v == null || v.isBlank() ? null : v;
  }
}
