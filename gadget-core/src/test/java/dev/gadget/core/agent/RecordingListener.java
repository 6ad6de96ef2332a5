package dev.gadget.core.agent;

import dev.gadget.core.model.ToolCall;
import dev.gadget.core.stream.StreamChunk;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/** Records every event of a run, in order, as short strings and as objects. */
public class RecordingListener implements AgentListener {
  public final List<String> events = new CopyOnWriteArrayList<>();
  public final List<StreamChunk> chunks = new CopyOnWriteArrayList<>();
  public final List<ToolCall> ended = new CopyOnWriteArrayList<>();
  public final AtomicInteger completions = new AtomicInteger();
  public volatile AgentOutcome outcome;

  @Override
  public void onIteration(int iteration) {
    events.add("iteration " + iteration);
  }

  @Override
  public void onChunk(StreamChunk chunk) {
    chunks.add(chunk);
    if (chunk instanceof StreamChunk.ToolCallChunk) {
      events.add("chunk toolCall " + ((StreamChunk.ToolCallChunk) chunk).call().name());
    } else {
      String kind = chunk instanceof StreamChunk.Thinking ? "thinking" : "response";
      if (events.isEmpty() || !events.get(events.size() - 1).equals("chunk " + kind)) {
        events.add("chunk " + kind); // consecutive tokens collapse into one event
      }
    }
  }

  @Override
  public void onToolStart(ToolCall call) {
    events.add("start " + call.name() + (call.response() == null ? "" : " WITH RESPONSE"));
  }

  @Override
  public void onToolEnd(ToolCall call, boolean success, Duration duration) {
    ended.add(call);
    events.add("end " + call.name() + " " + (success ? "ok" : "failed"));
  }

  @Override
  public void onComplete(AgentOutcome outcome) {
    this.outcome = outcome;
    completions.incrementAndGet();
    events.add("complete " + outcome.status());
  }

  /** The response text streamed so far. */
  public String responseText() {
    return chunks.stream().filter(c -> c instanceof StreamChunk.Response)
        .map(c -> ((StreamChunk.Response) c).data()).collect(Collectors.joining());
  }

  /** The thinking text streamed so far. */
  public String thinkingText() {
    return chunks.stream().filter(c -> c instanceof StreamChunk.Thinking)
        .map(c -> ((StreamChunk.Thinking) c).data()).collect(Collectors.joining());
  }
}
