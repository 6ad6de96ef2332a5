package dev.gadget.core.agent.tools;

import dev.gadget.core.agent.internal.PolicyNames;

/**
 * What a command the agent runs may touch, in the spirit of Codex's sandbox modes. See
 * {@link CommandSandbox} for how each is enforced.
 */
public enum SandboxPolicy {
  /** The whole file system read-only (the project too), hidden paths empty, no network. */
  READ_ONLY,
  /** Like {@link #READ_ONLY}, but the project directory (and a private {@code /tmp}) writable. */
  WORKSPACE_WRITE,
  /** No sandbox: the command runs as the drone's user, with everything that user may do. */
  FULL_ACCESS;

  /** The name on the command line and the wire: {@code read-only}, {@code workspace-write}, … */
  public String wireName() {
    return PolicyNames.of(this);
  }

  /**
   * The policy named {@code name} ({@link #wireName()}, any case, {@code _} or {@code -}).
   *
   * @throws IllegalArgumentException naming the policies when there is no such policy
   */
  public static SandboxPolicy fromWireName(String name) {
    return PolicyNames.parse(SandboxPolicy.class, name, "sandbox policy");
  }
}
