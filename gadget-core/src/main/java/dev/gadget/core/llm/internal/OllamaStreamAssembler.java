package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.LlmUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Assembles Ollama's {@code /api/chat} stream, one JSON object per line: {@code message.thinking}
 * and {@code message.content} deltas, tool calls that arrive whole (in {@code done:false} chunks
 * or in the {@code done:true} chunk, one or several per chunk), the final chunk's
 * {@code done_reason} and metrics (any of which may be missing; none at all is
 * {@link LlmUsage#NONE}), and {@code {"error": ...}}
 * lines, which end the stream with {@link LlmException.Kind#STREAM}. A {@code "stop"} after tool
 * calls is reported as {@link FinishReason#TOOL_CALLS}. Not thread-safe; one per stream.
 */
public final class OllamaStreamAssembler {
  private static final String API = "Ollama";
  private static final List<String> USAGE_FIELDS = List.of("prompt_eval_count", "eval_count",
      "total_duration", "load_duration", "prompt_eval_duration", "eval_duration");

  private final StreamEvents events;
  private final Supplier<String> ids;
  private final StringBuilder text = new StringBuilder();
  private final StringBuilder thinking = new StringBuilder();
  private final List<LlmToolCall> calls = new ArrayList<>();
  private boolean done;
  private String doneReason;
  private LlmUsage usage = LlmUsage.NONE;

  /**
   * An assembler.
   *
   * @param events receives the pieces as they are recognised
   * @param ids makes ids for tool calls the server sent without one
   */
  public OllamaStreamAssembler(StreamEvents events, Supplier<String> ids) {
    this.events = events;
    this.ids = ids;
  }

  /** Takes one line of the stream. Lines after the final chunk are ignored. */
  public void acceptLine(String line) {
    if (done) {
      return;
    }
    JsonNode chunk = Json.parse(line, "Ollama stream line");
    if (!chunk.isObject()) {
      throw Errors.protocol("Ollama stream line is not a JSON object: "
          + Json.abbreviate(line, 200));
    }
    JsonNode error = chunk.get("error");
    if (error != null && !error.isNull()) {
      ProviderError pe = ProviderError.fromJson(chunk);
      throw Errors.midStream(API, pe != null ? pe : new ProviderError(error.toString(), null, null));
    }
    JsonNode message = chunk.get("message");
    if (message != null && message.isObject()) {
      String t = Json.text(message, "thinking");
      if (t != null && !t.isEmpty()) {
        thinking.append(t);
        events.thinking(t);
      }
      String c = Json.text(message, "content");
      if (c != null && !c.isEmpty()) {
        text.append(c);
        events.text(c);
      }
      JsonNode toolCalls = message.get("tool_calls");
      if (toolCalls != null && toolCalls.isArray()) {
        for (JsonNode tc : toolCalls) {
          LlmToolCall call = toolCall(tc);
          calls.add(call);
          events.toolCall(call);
        }
      }
    }
    JsonNode d = chunk.get("done");
    if (d != null && d.asBoolean(false)) {
      done = true;
      doneReason = Json.text(chunk, "done_reason");
      boolean reported = false;
      for (String field : USAGE_FIELDS) {
        reported |= chunk.path(field).isNumber();
      }
      usage = !reported ? LlmUsage.NONE : new LlmUsage(
          Json.number(chunk, "prompt_eval_count"),
          Json.number(chunk, "eval_count"),
          0,
          duration(chunk, "total_duration"),
          duration(chunk, "load_duration"),
          duration(chunk, "prompt_eval_duration"),
          duration(chunk, "eval_duration"));
    }
  }

  /** Whether the final ({@code done:true}) chunk arrived. */
  public boolean isDone() {
    return done;
  }

  /** The end of the stream: the completion, or a protocol error if the final chunk is missing. */
  public LlmCompletion finish() {
    if (!done) {
      throw Errors.protocol("Ollama stream ended before its final (done:true) chunk");
    }
    return completion(FinishReasons.of(doneReason, !calls.isEmpty()));
  }

  /** What arrived so far. */
  public LlmCompletion partial() {
    return completion(done ? FinishReasons.of(doneReason, !calls.isEmpty()) : FinishReason.OTHER);
  }

  private LlmCompletion completion(FinishReason reason) {
    return new LlmCompletion(text.toString(), thinking.toString(), calls, usage, reason,
        List.of(), doneReason);
  }

  private LlmToolCall toolCall(JsonNode tc) {
    JsonNode fn = tc.has("function") ? tc.get("function") : tc;
    String name = Json.text(fn, "name");
    if (name == null) {
      throw Errors.protocol("Ollama tool call without a name: " + Json.abbreviate(tc.toString(), 200));
    }
    String id = Json.text(tc, "id");
    if (id == null || id.isEmpty()) {
      id = ids.get();
    }
    return new LlmToolCall(id, name, Json.arguments(fn.get("arguments")));
  }

  private static Duration duration(JsonNode chunk, String field) {
    JsonNode v = chunk.get(field);
    return v != null && v.isNumber() ? Duration.ofNanos(v.asLong()) : null;
  }
}
