package dev.gadget.mcp;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** One agent-loop turn with a toolset's tools: its outcome and what the model was sent. */
record OneTurn(AgentOutcome outcome, List<LlmRequest> requests, List<Boolean> successes) {
  static OneTurn run(McpToolset mcp, Path project, ScriptedLlmClient llm) throws Exception {
    List<Boolean> successes = new CopyOnWriteArrayList<>();
    // every tool offered: these turns call a server's tool without searching for it first
    AgentLoop loop = AgentLoop.builder().llmClient(llm).tools(mcp.tools())
        .toolDeferral(dev.gadget.core.agent.catalog.ToolDeferral.NEVER).build();
    AgentOutcome outcome = loop.start(AgentRequest.builder(project, "m", "go").build(),
        new AgentListener() {
          @Override public void onToolEnd(ToolCall call, boolean success, Duration duration) {
            successes.add(success);
          }
        }).outcome().get(60, TimeUnit.SECONDS);
    return new OneTurn(outcome, llm.requests(), successes);
  }

  /** The last tool message the model got, in its second request. */
  LlmMessage toolResult() {
    return requests.get(1).messages().stream().filter(m -> m.role() == Role.TOOL)
        .reduce((a, b) -> b).orElseThrow();
  }
}
