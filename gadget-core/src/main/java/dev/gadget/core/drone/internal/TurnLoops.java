package dev.gadget.core.drone.internal;

import dev.gadget.core.agent.AgentLimits;
import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.catalog.SemanticToolIndex;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.WorkOrder;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes each turn's agent loop: the work order's provider, the drone's tools, the turn's, the
 * project's synthesized tools ({@link DroneToolSynthesis}) and the skills of the project and
 * the user ({@link DroneSkills}); its commands in the drone's sandbox (built from
 * {@code sandbox}: the workspace hidden but the project, the user's skill folders readable),
 * neither the drone's token nor the turn's API key in their environment.
 */
public final class TurnLoops implements JobRunner.Loops {
  private static final Logger log = LoggerFactory.getLogger(TurnLoops.class);

  /**
   * What every turn's loop shares: its model client per provider, limits, tool deferral, the
   * embeddings {@code search_tools} also ranks by (or null), the tools' examples its model
   * writes, and the clock.
   */
  public record Settings(Function<ProviderConfig, LlmClient> llmClients, AgentLimits limits,
      ToolDeferral deferral, SemanticToolIndex embeddings, DroneToolExamples examples,
      Clock clock) {}

  private final Settings settings;
  private final List<Tool> tools;
  private final CommandSandbox.Builder sandbox;
  private final String token;
  private final DroneSkills skills;
  private final DroneToolSynthesis synthesis;
  private final Consumer<String> secrets;

  /** The loops; {@code secrets} learns each turn's API key (for the drone's log to leave out). */
  public TurnLoops(Settings settings, List<Tool> tools, CommandSandbox.Builder sandbox,
      String token, DroneSkills skills, DroneToolSynthesis synthesis, Consumer<String> secrets) {
    this.settings = settings;
    this.tools = List.copyOf(tools);
    this.sandbox = sandbox;
    this.token = token;
    this.skills = skills;
    this.synthesis = synthesis;
    this.secrets = secrets;
  }

  @Override
  public AgentLoop.Builder make(WorkOrder order, Path projectDir, List<Tool> turnTools) {
    ProviderConfig provider = order.provider();
    secrets.accept(provider.apiKey());
    CommandSandbox box;
    synchronized (sandbox) {
      box = sandbox.build().newBuilder().withhold(token, provider.apiKey()).build();
    }
    List<Tool> all = new ArrayList<>(tools);
    all.addAll(turnTools);
    all.addAll(synthesis.forProject(projectDir, box,
        all.stream().map(Tool::name).collect(Collectors.toSet()), order.createTools()));
    AgentLoop.Builder loop = AgentLoop.builder().llmClient(settings.llmClients().apply(provider))
        .limits(settings.limits()).clock(settings.clock()).sandbox(box)
        .toolEmbeddings(settings.embeddings())
        .toolExamples(settings.examples().forProvider(provider));
    return DroneSkills.offer(loop, skills.forProject(projectDir), all, deferral(order));
  }

  /** The drone's tool deferral, deciding when to defer as the work order's chat says if it does. */
  ToolDeferral deferral(WorkOrder order) {
    ToolDeferral drone = settings.deferral();
    if (order.toolDeferral() == null) {
      return drone;
    }
    try {
      return drone.when(ToolDeferral.parse(order.toolDeferral()));
    } catch (IllegalArgumentException e) {
      log.warn("work order {}: {}; deferring tools as this drone is set", order.id(),
          e.getMessage());
      return drone;
    }
  }
}
