package dev.gadget.core.agent.internal;

import dev.gadget.core.agent.AgentLimits;
import dev.gadget.core.agent.Compactor;
import dev.gadget.core.agent.ContextPruner;
import dev.gadget.core.agent.SystemPrompt;
import dev.gadget.core.llm.LlmClient;
import java.time.Clock;
import java.util.Objects;

/**
 * What every turn of one {@link dev.gadget.core.agent.AgentLoop} shares: the model, the tools, the
 * limits and the once-only warnings. Immutable apart from the warnings, which are thread-safe.
 *
 * @param llm the model to call
 * @param tools the tools offered to the model
 * @param limits the limits of a turn
 * @param pruner prunes the conversation before each round trip
 * @param compactor compacts it when pruning is not enough
 * @param clock for timestamps and durations
 * @param systemPrompt writes the first message of a turn
 * @param listenerWarning logs a listener that threw
 * @param budgetWarning logs a context still over its budget after pruning
 * @param sandbox where commands run
 * @param approvals which tool calls wait for approval, and who approves them
 * @param catalog every tool, indexed for search
 * @param deferral when tools are deferred, to be found by search
 */
public record LoopSettings(
    LlmClient llm,
    ToolSet tools,
    AgentLimits limits,
    ContextPruner pruner,
    Compactor compactor,
    Clock clock,
    SystemPrompt systemPrompt,
    WarnOnce listenerWarning,
    WarnOnce budgetWarning,
    dev.gadget.core.agent.tools.CommandSandbox sandbox,
    Approvals approvals,
    dev.gadget.core.agent.catalog.ToolCatalog catalog,
    dev.gadget.core.agent.catalog.ToolDeferral deferral) {
  public LoopSettings {
    Objects.requireNonNull(llm, "llmClient");
    Objects.requireNonNull(tools, "tools");
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(pruner, "pruner");
    Objects.requireNonNull(compactor, "compactor");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(systemPrompt, "systemPrompt");
    Objects.requireNonNull(listenerWarning, "listenerWarning");
    Objects.requireNonNull(budgetWarning, "budgetWarning");
    Objects.requireNonNull(sandbox, "sandbox");
    Objects.requireNonNull(approvals, "approvals");
    Objects.requireNonNull(catalog, "catalog");
    Objects.requireNonNull(deferral, "deferral");
  }
}
