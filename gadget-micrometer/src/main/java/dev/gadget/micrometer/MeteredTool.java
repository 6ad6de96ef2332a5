package dev.gadget.micrometer;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.llm.ToolDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/** A {@link Tool} that records each run's duration and outcome, then returns what it returned. */
final class MeteredTool implements Tool {
  private final MeterRegistry registry;
  private final Tool delegate;

  MeteredTool(MeterRegistry registry, Tool delegate) {
    this.registry = registry;
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public String description() {
    return delegate.description();
  }

  @Override
  public JsonNode parameters() {
    return delegate.parameters();
  }

  @Override
  public ToolDefinition definition() {
    return delegate.definition();
  }

  @Override
  public ToolResult execute(JsonNode arguments, ToolContext context) throws Exception {
    long start = registry.config().clock().monotonicTime();
    boolean success = false;
    try {
      ToolResult result = delegate.execute(arguments, context);
      success = result != null && !result.error();
      return result;
    } finally {
      record(registry, delegate.name(), success,
          registry.config().clock().monotonicTime() - start);
    }
  }

  /** Records one call on {@value GadgetMetrics#TOOL_DURATION}. */
  static void record(MeterRegistry registry, String tool, boolean success, long nanos) {
    Timer.builder(GadgetMetrics.TOOL_DURATION)
        .description("How long a tool call ran, by tool and outcome")
        .tag(GadgetMetrics.TOOL_NAME, tool)
        .tag(GadgetMetrics.TOOL_OUTCOME, success ? "success" : "error")
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }
}
