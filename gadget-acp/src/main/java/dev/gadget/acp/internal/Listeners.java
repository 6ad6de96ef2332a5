package dev.gadget.acp.internal;

import dev.gadget.core.agent.AgentListener;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.stream.StreamChunk;
import java.time.Duration;

/** One turn's listener that hands every event to two, in order: the record, then the editor. */
final class Listeners {
  private Listeners() {}

  static AgentListener both(AgentListener first, AgentListener second) {
    return new AgentListener() {
      @Override
      public void onIteration(int iteration) {
        first.onIteration(iteration);
        second.onIteration(iteration);
      }

      @Override
      public void onChunk(StreamChunk chunk) {
        first.onChunk(chunk);
        second.onChunk(chunk);
      }

      @Override
      public void onToolStart(ToolCall call) {
        first.onToolStart(call);
        second.onToolStart(call);
      }

      @Override
      public void onToolOutput(ToolCall call, String output) {
        first.onToolOutput(call, output);
        second.onToolOutput(call, output);
      }

      @Override
      public void onToolEnd(ToolCall call, boolean success, Duration duration) {
        first.onToolEnd(call, success, duration);
        second.onToolEnd(call, success, duration);
      }

      @Override
      public void onStats(TurnStats soFar) {
        first.onStats(soFar);
        second.onStats(soFar);
      }

      @Override
      public void onComplete(AgentOutcome outcome) {
        first.onComplete(outcome);
        second.onComplete(outcome);
      }
    };
  }
}
