package dev.gadget.micrometer;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.server.ServerListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Gadget's meters on a Micrometer {@link MeterRegistry}: wraps an {@link LlmClient}, and makes
 * the {@link AgentListener} and the {@link ServerListener} that record what the agent loop and the
 * server do. Names follow OpenTelemetry's GenAI semantic conventions where they exist
 * ({@value #OPERATION_DURATION}, {@value #TOKEN_USAGE}); the registry maps the dotted names to
 * its own convention (Prometheus: {@code gen_ai_client_operation_duration_seconds}).
 * {@code docs/METRICS.md} lists every meter with its tags.
 *
 * <pre>{@code
 * GadgetMetrics metrics = GadgetMetrics.of(registry);
 * AgentLoop loop = AgentLoop.builder().llmClient(metrics.llmClient(llm, "openai")).build();
 * loop.start(request, metrics.agentListener(myListener));      // one listener per run
 * GadgetServer.builder().listener(metrics.serverListener())...  // one per server
 * }</pre>
 *
 * <p>Thread-safe. Meters are registered as they are first needed.
 */
public final class GadgetMetrics {
  /** Timer: one model call, from the request to its last byte. */
  public static final String OPERATION_DURATION = "gen_ai.client.operation.duration";
  /** Distribution summary: tokens per model call, by {@value #TOKEN_TYPE}. */
  public static final String TOKEN_USAGE = "gen_ai.client.token.usage";
  /**
   * Distribution summary: input tokens per model call read from ({@code cache_read}) or written
   * to ({@code cache_creation}) the provider's prompt cache, by {@value #TOKEN_TYPE}; a part of
   * the {@code input} of {@value #TOKEN_USAGE}.
   */
  public static final String CACHE_TOKEN_USAGE = "gadget.llm.cache.tokens";
  /** Counter: model calls that failed, by {@value #ERROR_TYPE}. */
  public static final String LLM_ERRORS = "gadget.llm.errors";
  /** Timer: one tool call, by {@value #TOOL_NAME} and {@value #TOOL_OUTCOME}. */
  public static final String TOOL_DURATION = "gadget.tool.duration";
  /** Timer: one agent run, by {@value #TURN_STATUS}. */
  public static final String AGENT_TURN_DURATION = "gadget.agent.turn.duration";
  /** Timer: one turn as the server saw it, by {@value #TURN_STATUS}. */
  public static final String SERVER_TURN_DURATION = "gadget.server.turn.duration";
  /** Gauge: the server's running turns. */
  public static final String SERVER_TURNS_ACTIVE = "gadget.server.turns.active";
  /** Gauge: the server's open connections, by {@value #CONNECTION_KIND}. */
  public static final String SERVER_CONNECTIONS = "gadget.server.connections";

  /** Tag: the operation, always {@code chat}. */
  public static final String OPERATION_NAME = "gen_ai.operation.name";
  /** Tag: the LLM provider, as the caller named it (such as a {@link ProviderConfig#sdk()}). */
  public static final String PROVIDER_NAME = "gen_ai.provider.name";
  /** Tag: the model the request asked for. */
  public static final String REQUEST_MODEL = "gen_ai.request.model";
  /** Tag: {@code input} or {@code output}. */
  public static final String TOKEN_TYPE = "gen_ai.token.type";
  /** Tag: why a call failed (an {@code LlmException.Kind}, lower case), or {@code none}. */
  public static final String ERROR_TYPE = "error.type";
  /** Tag: the tool the model called. */
  public static final String TOOL_NAME = "gen_ai.tool.name";
  /** Tag: {@code success} or {@code error}. */
  public static final String TOOL_OUTCOME = "gadget.tool.outcome";
  /** Tag: how a turn ended, lower case ({@code finished}, {@code error}, ...). */
  public static final String TURN_STATUS = "gadget.turn.status";
  /** Tag: {@code page} or {@code drone}. */
  public static final String CONNECTION_KIND = "gadget.connection.kind";

  /** The most distinct tool names tagged; later ones are tagged {@value #OTHER_TOOL}. */
  public static final int MAX_TOOL_NAMES = 100;
  /** The tool name tag of a call past {@link #MAX_TOOL_NAMES} distinct names. */
  public static final String OTHER_TOOL = "other";

  private final MeterRegistry registry;
  private final Set<String> toolNames = ConcurrentHashMap.newKeySet();
  private ServerMetrics server;

  private GadgetMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** Gadget's meters on {@code registry}. */
  public static GadgetMetrics of(MeterRegistry registry) {
    return new GadgetMetrics(registry);
  }

  /**
   * The tag for a tool name the model asked for: the name itself for the first
   * {@link #MAX_TOOL_NAMES} distinct names, then {@value #OTHER_TOOL}, so a model inventing
   * names cannot grow the number of series without bound.
   */
  String toolTag(String name) {
    if (toolNames.contains(name)) {
      return name;
    }
    synchronized (toolNames) {
      if (toolNames.size() < MAX_TOOL_NAMES) {
        toolNames.add(name);
        return name;
      }
    }
    return toolNames.contains(name) ? name : OTHER_TOOL;
  }

  /** The registry the meters are on. */
  public MeterRegistry registry() {
    return registry;
  }

  /**
   * {@code delegate}, timing each call and counting its tokens and failures.
   *
   * @param delegate the client that does the work
   * @param providerName the {@value #PROVIDER_NAME} tag, such as {@code openai}
   * @return a client with {@code delegate}'s behaviour
   */
  public LlmClient llmClient(LlmClient delegate, String providerName) {
    return new MeteredLlmClient(registry, Objects.requireNonNull(delegate, "delegate"),
        Objects.requireNonNull(providerName, "providerName"));
  }

  /**
   * A factory of metered clients, for {@code GadgetDrone.Builder#llmClients}: each client
   * {@code factory} makes is wrapped, with the provider's {@link ProviderConfig#sdk()} as
   * {@value #PROVIDER_NAME}.
   */
  public Function<ProviderConfig, LlmClient> llmClients(
      Function<ProviderConfig, LlmClient> factory) {
    Objects.requireNonNull(factory, "factory");
    return config -> llmClient(factory.apply(config), config.sdk());
  }

  /**
   * A listener for <em>one</em> agent run that records its duration and its tool calls and
   * passes every event on to {@code delegate}. The run's clock starts now: make it just before
   * {@code AgentLoop.start}.
   */
  public AgentListener agentListener(AgentListener delegate) {
    return new MeteredAgentListener(registry, Objects.requireNonNull(delegate, "delegate"),
        this::toolTag);
  }

  /**
   * {@code tools}, each recording its runs on {@value #TOOL_DURATION}: for a loop whose listener
   * is not yours to choose, such as a {@code GadgetDrone}'s ({@code GadgetDrone.Builder#tools}).
   * Use it <em>or</em> {@link #agentListener}, not both: each records every tool call. Unlike the
   * listener, it sees only the calls that reached a tool (not those the loop answered itself,
   * such as an unknown tool's).
   */
  public List<Tool> tools(List<? extends Tool> tools) {
    List<Tool> metered = new ArrayList<>();
    for (Tool t : tools) {
      metered.add(new MeteredTool(registry, Objects.requireNonNull(t, "tool")));
    }
    return List.copyOf(metered);
  }

  /** {@link #agentListener(AgentListener)} with nothing to pass the events on to. */
  public AgentListener agentListener() {
    return agentListener(new AgentListener() {});
  }

  /**
   * The listener for {@code GadgetServer.Builder#listener}: live turns, connections and turn
   * durations. Always the same one: the gauges count for a single server.
   */
  public synchronized ServerListener serverListener() {
    if (server == null) {
      server = new ServerMetrics(registry);
    }
    return server;
  }
}
