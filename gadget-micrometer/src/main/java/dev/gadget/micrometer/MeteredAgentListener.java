package dev.gadget.micrometer;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.stream.StreamChunk;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** One agent run's listener: records its tool calls and its duration, then delegates. */
final class MeteredAgentListener implements AgentListener {
  private final MeterRegistry registry;
  private final AgentListener delegate;
  private final UnaryOperator<String> toolTag;
  private final long start;

  MeteredAgentListener(MeterRegistry registry, AgentListener delegate,
      UnaryOperator<String> toolTag) {
    this.registry = registry;
    this.delegate = delegate;
    this.toolTag = toolTag;
    this.start = registry.config().clock().monotonicTime();
  }

  @Override
  public void onIteration(int iteration) {
    delegate.onIteration(iteration);
  }

  @Override
  public void onChunk(StreamChunk chunk) {
    delegate.onChunk(chunk);
  }

  @Override
  public void onToolStart(ToolCall call) {
    delegate.onToolStart(call);
  }

  @Override
  public void onToolOutput(ToolCall call, String output) {
    delegate.onToolOutput(call, output);
  }

  @Override
  public void onToolEnd(ToolCall call, boolean success, Duration duration) {
    MeteredTool.record(registry, toolTag.apply(call.name()), success, duration.toNanos());
    delegate.onToolEnd(call, success, duration);
  }

  @Override
  public void onStats(dev.gadget.core.model.TurnStats soFar) {
    delegate.onStats(soFar);
  }

  @Override
  public void onComplete(AgentOutcome outcome) {
    Timer.builder(GadgetMetrics.AGENT_TURN_DURATION)
        .description("How long an agent run took, by how it ended")
        .tag(GadgetMetrics.TURN_STATUS, outcome.status().name().toLowerCase(Locale.ROOT))
        .register(registry)
        .record(registry.config().clock().monotonicTime() - start, TimeUnit.NANOSECONDS);
    delegate.onComplete(outcome);
  }
}
