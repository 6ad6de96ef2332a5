package dev.gadget.examples;

import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The sandbox options of the commands that run the agent ({@code drone}, {@code acp}):
 * {@code --sandbox}, {@code --sandbox-network}, {@code --sandbox-hide}, {@code --sandbox-read}
 * and {@code --sandbox-env}, read into a {@link CommandSandbox}.
 */
final class SandboxOptions {
  /** The options, for a command's {@code options()}. */
  static final List<OptionSpec> OPTIONS = List.of(
      OptionSpec.value("sandbox", "POLICY", "where the agent's commands run: read-only, "
          + "workspace-write (default) or full-access (no sandbox)"),
      OptionSpec.flag("sandbox-network", "let sandboxed commands use the network"),
      OptionSpec.value("sandbox-hide", "DIRS", "hide these directories (:-separated) from "
          + "commands too, such as a server's --data-dir on this machine; the home directory "
          + "(and a drone's workspace) is hidden already"),
      OptionSpec.value("sandbox-read", "DIRS", "let commands read these directories "
          + "(:-separated) inside hidden ones, such as ~/.m2 for builds (read-only)"),
      OptionSpec.value("sandbox-env", "NAMES", "pass these environment variables "
          + "(,-separated) on to commands as well; commands get only PATH, HOME, LANG, TERM, "
          + "TZ, the toolchains' own (JAVA_HOME, GOPATH, ...) and these, never a GADGET_ "
          + "variable or an LLM key"));

  private SandboxOptions() {}

  /** The sandbox the options name. */
  static CommandSandbox of(Args args) {
    SandboxPolicy policy;
    try {
      policy = SandboxPolicy.fromWireName(args.get("sandbox", "workspace-write"));
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    CommandSandbox.Builder b = policy == SandboxPolicy.FULL_ACCESS
        ? CommandSandbox.none().newBuilder()
        : CommandSandbox.builder(policy).network(args.flag("sandbox-network"));
    b.hide(paths(args, "sandbox-hide")).readable(paths(args, "sandbox-read"));
    try {
      b.env(args.get("sandbox-env").map(v -> v.split(",", -1)).orElse(new String[0]));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--sandbox-env: " + e.getMessage());
    }
    return b.build();
  }

  /** Where commands run, in a sentence (or why they are refused: this probes bubblewrap). */
  static String describe(CommandSandbox sandbox) {
    return sandbox.problem().map(problem -> "Commands are refused: " + problem + ".")
        .orElseGet(() -> policy(sandbox));
  }

  /** Where commands run, in a sentence, without probing bubblewrap. */
  static String policy(CommandSandbox sandbox) {
    return "Commands run " + sandbox.where();
  }

  /** The directories a PATH-like option lists ({@code :}-separated); each must exist. */
  static Path[] paths(Args args, String option) {
    String value = args.get(option).orElse(null);
    if (value == null) {
      return new Path[0];
    }
    List<Path> out = new ArrayList<>();
    for (String part : value.split(File.pathSeparator, -1)) {
      if (part.isBlank()) {
        throw new UsageException("--" + option + ": an empty path in \"" + value + "\"");
      }
      Path dir = Path.of(part).toAbsolutePath().normalize();
      if (!Files.isDirectory(dir)) {
        throw new UsageException("--" + option + ": " + dir + " is not a directory");
      }
      out.add(dir);
    }
    return out.toArray(Path[]::new);
  }
}
