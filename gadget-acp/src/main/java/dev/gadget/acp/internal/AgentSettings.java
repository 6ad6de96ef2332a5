package dev.gadget.acp.internal;

import dev.gadget.core.agent.AgentLimits;
import dev.gadget.core.agent.ApprovalPolicy;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.model.ModelParams;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * What every session of one ACP agent shares: the model, the tools, the limits, where commands
 * run and which calls ask.
 *
 * @param llm the model's client
 * @param model the model id (an editor's {@code session/set_model} changes it per session)
 * @param params sampling parameters, or {@code null} for the model's own
 * @param tools the tools offered, before the editor's file system and MCP servers replace or
 *     join them
 * @param limits the limits of a turn
 * @param sandbox where a session's commands run, from its project directory
 * @param approvalPolicy which calls ask the editor first
 * @param maxMessageBytes the longest message read from the editor
 * @param mcpTimeout how long an editor's MCP server may take to start and answer
 * @param name the agent's name in {@code initialize}
 * @param version the agent's version in {@code initialize}
 * @param sessionsDirectory where sessions are stored, one store directory each, or {@code null}
 *     to keep them in memory only
 * @param editorTerminal whether commands run in the editor's terminal when it offers one
 */
public record AgentSettings(LlmClient llm, String model, ModelParams params, List<Tool> tools,
    AgentLimits limits, Function<Path, CommandSandbox> sandbox, ApprovalPolicy approvalPolicy,
    int maxMessageBytes, Duration mcpTimeout, String name, String version,
    Path sessionsDirectory, boolean editorTerminal) {
  public AgentSettings {
    Objects.requireNonNull(llm, "llm");
    Objects.requireNonNull(model, "model");
    tools = List.copyOf(tools);
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(sandbox, "sandbox");
    Objects.requireNonNull(approvalPolicy, "approvalPolicy");
    Objects.requireNonNull(mcpTimeout, "mcpTimeout");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
  }
}
