package dev.gadget.core.agent.tools;

import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.internal.Bubblewrap;
import dev.gadget.core.agent.internal.CommandEnvironment;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Where the agent's commands run: in a bubblewrap ({@code bwrap}) sandbox on Linux, or with no
 * sandbox at all ({@link SandboxPolicy#FULL_ACCESS}). Set it on the loop with
 * {@code AgentLoop.Builder#sandbox}; {@code run_command} asks {@code ToolContext#sandbox()} for it.
 *
 * <p>Inside the sandbox the whole file system is mounted read-only; the user's home, {@code /run},
 * every {@link Builder#hide hidden} path and every {@code .gadget/} directory in or next to the
 * project are replaced by empty read-only directories; {@code /tmp} is a private, empty, writable
 * directory; the project is writable under {@link SandboxPolicy#WORKSPACE_WRITE} and read-only
 * under {@link SandboxPolicy#READ_ONLY}, and its {@code .git} is read-only under both: what git
 * runs (hooks, its config, attributes) is never the agent's to write. The command has its own PID, IPC, UTS and network
 * namespaces (only a loopback of its own, unless {@link Builder#network} allows the network) and
 * its own session. When the command's shell exits, the kernel kills every process left in its PID
 * namespace; when the process that started it dies, so does the sandbox ({@code --die-with-parent}).
 *
 * <p>In every policy, full access included, a command gets a {@link #environment clean
 * environment}: what shells and toolchains need and the names {@link Builder#env} adds, never a
 * {@code GADGET_} variable, an LLM key, a {@link Builder#withhold withheld} value or one shaped
 * like a token or key.
 *
 * <p>Immutable and thread-safe. Where {@code bwrap} is missing or cannot create namespaces,
 * {@link #problem()} says so and every command is refused with that message, never run unconfined.
 */
public final class CommandSandbox {
  private static final CommandSandbox NONE = new CommandSandbox(
      new Builder(SandboxPolicy.FULL_ACCESS));

  private final SandboxPolicy policy;
  private final boolean network;
  private final List<Path> hidden;
  private final List<Path> readable;
  private final Set<String> env;
  private final Set<String> withheld;
  private final String bwrap;
  private final List<Bubblewrap.Bind> binds;

  private CommandSandbox(Builder b) {
    this.binds = List.copyOf(b.binds);
    this.policy = b.policy;
    this.network = b.network || b.policy == SandboxPolicy.FULL_ACCESS;
    this.hidden = List.copyOf(b.hidden);
    this.readable = List.copyOf(b.readable);
    this.env = Set.copyOf(b.env);
    this.withheld = Set.copyOf(b.withheld);
    this.bwrap = b.bwrap;
  }

  /** No sandbox: commands run as the process's user ({@link SandboxPolicy#FULL_ACCESS}). */
  public static CommandSandbox none() {
    return NONE;
  }

  /** The sandbox of {@code policy} with its defaults (no network). */
  public static CommandSandbox of(SandboxPolicy policy) {
    return builder(policy).build();
  }

  /** A builder for a sandbox of {@code policy}. */
  public static Builder builder(SandboxPolicy policy) {
    return new Builder(policy);
  }

  /** A builder with this sandbox's settings. */
  public Builder newBuilder() {
    Builder b = new Builder(policy).network(network && policy != SandboxPolicy.FULL_ACCESS);
    b.hidden.addAll(hidden);
    b.readable.addAll(readable);
    b.env.addAll(env);
    b.withheld.addAll(withheld);
    b.bwrap = bwrap;
    b.binds.addAll(binds);
    return b;
  }

  /** The policy. */
  public SandboxPolicy policy() {
    return policy;
  }

  /** Whether commands may use the network. */
  public boolean network() {
    return network;
  }

  /**
   * Why commands cannot run under this sandbox (bubblewrap missing or not working here), in words
   * for the operator and the model; empty when they can. Probes {@code bwrap} once per process.
   */
  public Optional<String> problem() {
    if (policy == SandboxPolicy.FULL_ACCESS) {
      return Optional.empty();
    }
    return Bubblewrap.problem(bwrap);
  }

  /**
   * Where commands run, in words after "commands run": {@code with full access (no sandbox)}
   * or {@code in a workspace-write sandbox with network}. Does not probe bubblewrap.
   */
  public String where() {
    return policy == SandboxPolicy.FULL_ACCESS ? "with full access (no sandbox)"
        : "in a " + policy.wireName() + " sandbox" + (network ? " with network" : "");
  }

  /**
   * The command line that runs a command in this sandbox for {@code projectDir}: what goes
   * before {@code /bin/sh -c command}. Empty under {@link SandboxPolicy#FULL_ACCESS}.
   *
   * @throws ToolException with a message for the model when the sandbox cannot run commands
   */
  public List<String> wrapper(Path projectDir) {
    if (policy == SandboxPolicy.FULL_ACCESS) {
      return List.of();
    }
    Optional<String> problem = problem();
    if (problem.isPresent()) {
      throw new ToolException("commands are refused: " + problem.get());
    }
    return Bubblewrap.argv(bwrap, policy == SandboxPolicy.WORKSPACE_WRITE, network,
        projectDir, hidden, readable, binds);
  }

  /**
   * The environment a command gets, from {@code from} (the process's own): see the class
   * comment. {@code TMPDIR} is kept only without a sandbox.
   */
  public Map<String, String> environment(Map<String, String> from) {
    return CommandEnvironment.of(from, env, withheld, policy == SandboxPolicy.FULL_ACCESS);
  }

  @Override
  public String toString() {
    return "CommandSandbox{" + policy.wireName() + (network ? ", network" : "") + "}";
  }

  /** Builds a {@link CommandSandbox}. */
  public static final class Builder {
    private final SandboxPolicy policy;
    private boolean network;
    private final Set<Path> hidden = new LinkedHashSet<>();
    private final Set<Path> readable = new LinkedHashSet<>();
    private final Set<String> env = new LinkedHashSet<>();
    private final Set<String> withheld = new LinkedHashSet<>();
    private String bwrap = "bwrap";
    private final List<Bubblewrap.Bind> binds = new java.util.ArrayList<>();

    private Builder(SandboxPolicy policy) {
      this.policy = Objects.requireNonNull(policy, "policy");
    }

    /** Whether commands may reach the network (default false; always under full access). */
    public Builder network(boolean network) {
      this.network = network;
      return this;
    }

    /**
     * Hides {@code dirs} from commands: each appears empty and read-only (the project directory
     * stays visible when it is inside one). A drone hides its whole workspace this way, so that
     * other projects and its {@code .gadget/} files are out of reach.
     */
    public Builder hide(Path... dirs) {
      for (Path d : dirs) {
        hidden.add(d.toAbsolutePath().normalize());
      }
      return this;
    }

    /**
     * Makes {@code dirs} readable again inside hidden ones (such as {@code ~/.m2} inside the
     * hidden home, for builds); they stay read-only.
     */
    public Builder readable(Path... dirs) {
      for (Path d : dirs) {
        readable.add(d.toAbsolutePath().normalize());
      }
      return this;
    }

    /**
     * Passes the environment variables {@code names} on to commands as well (a toolchain's
     * settings), unless a value is withheld or shaped like a secret.
     *
     * @throws IllegalArgumentException naming the reason for a name that is never passed on
     *     (a {@code GADGET_} variable, an LLM key, not a variable's name)
     */
    public Builder env(String... names) {
      for (String n : names) {
        CommandEnvironment.refusal(n).ifPresent(why -> {
          throw new IllegalArgumentException(why);
        });
        env.add(n);
      }
      return this;
    }

    /**
     * Never passes on a variable whose value holds one of {@code secrets} (the drone's token,
     * the turn's API key); nulls and values under 4 characters are ignored.
     */
    public Builder withhold(String... secrets) {
      for (String s : secrets) {
        if (s != null && s.length() >= 4) {
          withheld.add(s);
        }
      }
      return this;
    }

    /**
     * Binds the host's {@code source} (a file or a directory) at {@code target} inside the
     * sandbox, after everything else, so that it lies over what is there (a file of the project,
     * say) or appears in the private {@code /tmp}; read-only unless {@code writable}. How a
     * composite synthesized tool's inner steps are observed. Ignored without a sandbox
     * ({@link SandboxPolicy#FULL_ACCESS}).
     */
    public Builder bind(Path source, Path target, boolean writable) {
      binds.add(new Bubblewrap.Bind(source.toAbsolutePath().normalize(),
          target.toAbsolutePath().normalize(), writable));
      return this;
    }

    /** The bubblewrap executable: a path, or a name looked up on the {@code PATH} (default). */
    public Builder bwrap(String executable) {
      this.bwrap = Objects.requireNonNull(executable, "executable");
      return this;
    }

    /** The sandbox. */
    public CommandSandbox build() {
      return new CommandSandbox(this);
    }
  }
}
