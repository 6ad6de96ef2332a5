package dev.gadget.core.agent;

import dev.gadget.core.agent.internal.PolicyNames;
import dev.gadget.core.agent.skills.SavePatternTool;
import dev.gadget.core.agent.synth.CreateToolTool;
import dev.gadget.core.agent.tools.EditFileTool;
import dev.gadget.core.agent.tools.RunCommandTool;
import dev.gadget.core.agent.tools.WriteFileTool;

/**
 * Which tool calls wait for a {@link ToolApprover}'s answer before they run. Set on the loop with
 * {@link AgentLoop.Builder#approvals}.
 */
public enum ApprovalPolicy {
  /** Nothing waits: every call runs at once (the default). */
  NEVER,
  /** {@code run_command} calls wait, and {@code create_tool}'s (it runs the tool's tests). */
  COMMANDS,
  /**
   * {@code run_command}, {@code write_file}, {@code edit_file}, {@code create_tool} and
   * {@code save_pattern} calls wait.
   */
  COMMANDS_AND_WRITES,
  /** Every call waits, whatever the tool (an application's and MCP tools too). */
  EVERYTHING;

  /** Whether a call of the tool named {@code toolName} waits under this policy. */
  public boolean asksFor(String toolName) {
    switch (this) {
      case NEVER:
        return false;
      case COMMANDS:
        return RunCommandTool.NAME.equals(toolName) || CreateToolTool.NAME.equals(toolName);
      case COMMANDS_AND_WRITES:
        return RunCommandTool.NAME.equals(toolName) || WriteFileTool.NAME.equals(toolName)
            || EditFileTool.NAME.equals(toolName) || CreateToolTool.NAME.equals(toolName)
            || SavePatternTool.NAME.equals(toolName);
      default:
        return true;
    }
  }

  /**
   * Whether an approval of {@code run_command} for the rest of a session with the command prefix
   * {@code prefix} covers {@code command}: it starts with the prefix and has no shell operator
   * that could start another command ({@code ; & | ` $ < > ( )} or a line break).
   */
  public static boolean prefixCovers(String prefix, String command) {
    if (prefix == null || command == null || !command.startsWith(prefix)) {
      return false;
    }
    for (char c : command.toCharArray()) {
      if (";&|`$<>()\n\r".indexOf(c) >= 0) {
        return false;
      }
    }
    return true;
  }

  /** The name on the command line and the wire: {@code never}, {@code commands-and-writes}, … */
  public String wireName() {
    return PolicyNames.of(this);
  }

  /**
   * The policy named {@code name} ({@link #wireName()}, any case, {@code _} or {@code -}).
   *
   * @throws IllegalArgumentException naming the policies when there is no such policy
   */
  public static ApprovalPolicy fromWireName(String name) {
    return PolicyNames.parse(ApprovalPolicy.class, name, "approval policy");
  }
}
