package dev.gadget.core.agent;

import dev.gadget.core.model.ToolCall;
import dev.gadget.core.stream.StreamChunk;
import java.time.Duration;

/**
 * Receives the events of one agent run. Every method has a no-op default.
 *
 * <p><b>Order.</b> For each round trip: {@link #onIteration}, then the model's
 * {@link #onChunk thinking and response chunks} as they stream, then for each tool call
 * {@link #onToolStart}, any {@link #onToolOutput} while it runs, {@link #onToolEnd} and a
 * {@link StreamChunk.ToolCallChunk} carrying the call <em>with its result</em>. Last, exactly once, {@link #onComplete}; nothing follows it. The
 * chunks can be fed straight into a {@link dev.gadget.core.stream.BlockAggregator}.
 *
 * <p><b>Threading.</b> Callbacks of one run never overlap, but may come from different threads
 * (the loop's and the LLM client's). Keep them short: the loop waits for them. A callback that
 * throws is logged and ignored; it never breaks the run.
 */
public interface AgentListener {
  /** A round trip to the model begins ({@code iteration} counts from 1). */
  default void onIteration(int iteration) {}

  /**
   * A piece of the stream: {@link StreamChunk.Thinking} and {@link StreamChunk.Response} tokens as
   * the model streams them, and a {@link StreamChunk.ToolCallChunk} once a tool has run (its
   * {@code response} is what the model receives). A {@link StreamChunk.Thinking} with empty text
   * and {@link StreamChunk.Thinking#reasoning() reasoning} carries a block of reasoning as the
   * provider signed or encrypted it, for the next turn (never to be shown). No chunk arrives
   * after the run was cancelled.
   */
  default void onChunk(StreamChunk chunk) {}

  /** A tool is about to run; {@code call.response()} is {@code null}. */
  default void onToolStart(ToolCall call) {}

  /**
   * Output a running tool produced, as it produced it (such as a command's lines as it prints
   * them): between {@link #onToolStart} and {@link #onToolEnd} of that call, possibly from the
   * tool's own thread (never overlapping another callback). For watchers only: the model reads
   * the result. Unbounded here: a listener that forwards it bounds it.
   *
   * @param call the running call ({@code call.response()} is {@code null})
   * @param output the next piece of output
   */
  default void onToolOutput(ToolCall call, String output) {}

  /**
   * A tool has run.
   *
   * @param call the call with its result
   * @param success {@code false} when the tool reported an error, threw, or was cancelled
   * @param duration how long it ran
   */
  default void onToolEnd(ToolCall call, boolean success, Duration duration) {}

  /**
   * The turn's stats so far (tokens, round trips, time, Ollama's durations, the tools'
   * durations), after each model round and after each tool run (seeds 001/002: counted as the
   * turn goes, not only at its end). The final ones are {@link AgentOutcome#stats()}.
   */
  default void onStats(dev.gadget.core.model.TurnStats soFar) {}

  /** The run ended. Terminal: called exactly once, last. */
  default void onComplete(AgentOutcome outcome) {}
}
