package dev.gadget.core.agent.internal;

import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The environment the agent's commands get: an allow-list of what shells and toolchains need,
 * plus the names an operator adds, never a Gadget variable, an LLM key, a value the drone holds
 * as a secret or a value shaped like one. The drone's own environment (its token, its keys) is
 * not the command's. Pure; thread-safe.
 */
public final class CommandEnvironment {
  /** What every command gets when the drone has it. */
  static final Set<String> ALLOWED = Set.of(
      "PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "NO_COLOR",
      "JAVA_HOME", "JDK_HOME", "MAVEN_HOME", "M2_HOME", "GRADLE_HOME", "GRADLE_USER_HOME",
      "GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE", "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR",
      "NODE_PATH", "PNPM_HOME", "PYENV_ROOT", "VIRTUAL_ENV", "CONDA_PREFIX", "SDKMAN_DIR",
      "DOTNET_ROOT", "ANDROID_HOME", "ANDROID_SDK_ROOT", "LD_LIBRARY_PATH", "PKG_CONFIG_PATH",
      "CC", "CXX");
  /** The LLM keys a drone reads from its own environment. */
  private static final Set<String> LLM_KEYS = Set.of(
      "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_API_KEY");

  private CommandEnvironment() {}

  /**
   * Why {@code name} may not be passed to commands, in words for the operator; empty when it
   * may.
   */
  public static Optional<String> refusal(String name) {
    if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      return Optional.of("\"" + name + "\" is not an environment variable's name (letters, "
          + "digits and _, not starting with a digit)");
    }
    if (name.toUpperCase(Locale.ROOT).startsWith("GADGET_")) {
      return Optional.of(name + " is Gadget's own (the drone's token and keys live there); "
          + "commands never get a GADGET_ variable");
    }
    if (LLM_KEYS.contains(name.toUpperCase(Locale.ROOT))) {
      return Optional.of(name + " is an LLM key of the drone's; commands never get it");
    }
    return Optional.empty();
  }

  /**
   * The command's environment from {@code from} (the drone's): the allowed names, the
   * {@code LC_*} ones and {@code extra}, less anything {@link #refusal refused} or holding one of
   * {@code withheld} or something {@link SecretShapes shaped} like a secret. {@code TMPDIR} is
   * kept only when {@code keepTmpdir} (without a sandbox: inside one, {@code /tmp} is private).
   */
  public static Map<String, String> of(Map<String, String> from, Collection<String> extra,
      Collection<String> withheld, boolean keepTmpdir) {
    Map<String, String> env = new TreeMap<>();
    for (Map.Entry<String, String> e : from.entrySet()) {
      String name = e.getKey();
      String value = e.getValue();
      boolean wanted = ALLOWED.contains(name) || name.startsWith("LC_") || extra.contains(name)
          || keepTmpdir && name.equals("TMPDIR");
      if (!wanted || value == null || refusal(name).isPresent() || SecretShapes.holdsOne(value)
          || withheld.stream().anyMatch(value::contains)) {
        continue;
      }
      env.put(name, value);
    }
    return env;
  }
}
