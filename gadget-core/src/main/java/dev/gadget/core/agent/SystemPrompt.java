package dev.gadget.core.agent;

import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.core.llm.ToolDefinition;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes the system prompt of a turn: the first message the model receives. Set one with
 * {@link AgentLoop.Builder#systemPrompt}; {@link #DEFAULT} names the project, the workspace
 * directory, the mode and the tools, and says how to work with them. Called once per run, on the
 * run's thread.
 */
@FunctionalInterface
public interface SystemPrompt {
  /** The default prompt. */
  SystemPrompt DEFAULT = SystemPrompt::defaultPrompt;

  /**
   * The system prompt for {@code request}.
   *
   * @param request the turn
   * @param projectDir the project directory, symbolic links resolved
   * @param tools the tools offered to the model
   */
  String build(AgentRequest request, Path projectDir, List<ToolDefinition> tools);

  /**
   * The system prompt for {@code request} when commands run in {@code sandbox}: what
   * {@link #build(AgentRequest, Path, List)} writes, then, when there is a sandbox and the model
   * has tools, {@link #sandboxNote} so that a refused write or a failed download is no riddle to
   * it. Override this one to word the sandbox yourself.
   */
  default String build(AgentRequest request, Path projectDir, List<ToolDefinition> tools,
      CommandSandbox sandbox) {
    String prompt = build(request, projectDir, tools);
    return tools.isEmpty() || sandbox.policy() == SandboxPolicy.FULL_ACCESS ? prompt
        : prompt + (prompt.endsWith("\n") ? "\n" : "\n\n") + sandboxNote(sandbox) + "\n";
  }

  /**
   * What the model is told of {@code sandbox}, in two sentences: empty under full access.
   */
  static String sandboxNote(CommandSandbox sandbox) {
    String net = sandbox.network() ? "the network is reachable" : "there is no network";
    switch (sandbox.policy()) {
      case READ_ONLY:
        return "Sandbox: this drone is read-only. Commands run in a sandbox where nothing is "
            + "writable but a private /tmp that is emptied after each command, " + net
            + " and the home directory is hidden; write_file and edit_file are refused.";
      case WORKSPACE_WRITE:
        return "Sandbox: commands run in a sandbox where only the project is writable (not its "
            + ".git: Gadget records your changes itself, so git can read history but not "
            + "commit), " + net + ", each command has a private /tmp, emptied when it ends, and "
            + "the home directory is hidden.";
      default:
        return "";
    }
  }

  private static String defaultPrompt(
      AgentRequest request, Path projectDir, List<ToolDefinition> tools) {
    StringBuilder sb = new StringBuilder();
    sb.append("You are Gadget, a coding agent. You work for the user on the project \"")
        .append(request.projectName()).append("\", a git working tree.\n\n");
    sb.append("Workspace: ").append(projectDir).append("\n");
    sb.append("Every path you give a tool is relative to this directory. Absolute paths, \"..\" "
        + "and symbolic links that lead outside it are refused.\n\n");
    sb.append("Mode: ").append(request.mode()).append("\n\n");
    if (tools.isEmpty()) {
      sb.append("You have no tools in this turn: answer from what you know.\n");
    } else {
      sb.append("Tools:\n");
      for (ToolDefinition tool : tools) {
        sb.append("- ").append(tool.name()).append(": ").append(tool.description()).append('\n');
      }
      sb.append("\nHow to work:\n"
          + "- Look before you change: list, glob, grep and read the files involved.\n"
          + "- Read a file before you edit or overwrite it. edit_file replaces one exact, unique "
          + "piece of text: copy it from what read_file returned.\n"
          + "- Run builds, tests and git with run_command; it runs in the workspace directory.\n"
          + "- A tool error is a message for you: read it and try another way.\n"
          + (tools.stream().anyMatch(t -> t.name().equals(
              dev.gadget.core.agent.catalog.ToolSearch.NAME))
              ? "- More tools can be loaded than are listed here: when none of these fits, "
                  + "search_tools finds one by what you want to do.\n" : "")
          + (tools.stream().anyMatch(t -> t.name().equals(
              dev.gadget.core.agent.catalog.ToolSearch.CALL_TOOL))
              ? "- Call a tool that search_tools loaded through call_tool, with its name and "
                  + "the arguments its definition asks for.\n" : "")
          + "- When the task is done, reply with a short summary and call no tool.\n");
    }
    return sb.toString();
  }
}
