package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.LlmUsage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Assembles an OpenAI-compatible {@code chat.completion.chunk} stream, one SSE event's data at a
 * time.
 *
 * <ul>
 *   <li>Text from {@code delta.content}; reasoning from {@code delta.reasoning_content}
 *       (DeepSeek, vLLM) or {@code delta.reasoning} (OpenRouter, Ollama), and only when neither
 *       is present from {@code delta.reasoning_details} (which OpenRouter sends as a copy of
 *       {@code reasoning}; it is never counted twice).
 *   <li>Tool-call fragments keyed by {@code index} (not necessarily from 0), with {@code id} and
 *       name usually only in the first fragment and {@code arguments} split anywhere; without an
 *       {@code index}, a fragment with a new {@code id} starts a call and one without continues
 *       the last. A fragment whose index is taken by a call with a different id starts a new
 *       call. Calls are handed on, complete and in order of first appearance, at the finish
 *       reason (or at the end of the stream).
 *   <li>{@code usage} from any chunk (with empty {@code choices}, on the finish chunk, or with
 *       {@code choices: null}); the last one wins. Cached prompt tokens from
 *       {@code prompt_tokens_details.cached_tokens} (or DeepSeek's
 *       {@code prompt_cache_hit_tokens}), else from llama.cpp's {@code timings.cache_n}.
 *   <li>{@code [DONE]} ends the stream; so does the end of input after a finish reason. The end
 *       of input before either is a {@link LlmException.Kind#PROTOCOL} error.
 *   <li>{@code {"error": ...}} data, flat {@code {"object":"error","message",...}} data (SGLang,
 *       some vLLM versions), an {@code error} event or an {@code error:} field line (older
 *       llama.cpp, see {@link #acceptErrorField}) ends the stream with
 *       {@link LlmException.Kind#STREAM}, as does the finish reason {@code "error"}.
 *   <li>A non-streamed {@code chat.completion} (some servers ignore {@code stream: true}) is
 *       read the same way: {@code message} in place of {@code delta}.
 * </ul>
 *
 * <p>Only the first choice (index 0) is read. Not thread-safe; one per stream.
 */
public final class OpenAiStreamAssembler {
  private static final String API = "OpenAI-compatible server";

  private final StreamEvents events;
  private final Supplier<String> ids;
  private final StringBuilder text = new StringBuilder();
  private final StringBuilder thinking = new StringBuilder();
  private final List<PendingCall> pending = new ArrayList<>();
  private final Map<Integer, PendingCall> byIndex = new HashMap<>();
  private final Map<String, PendingCall> byId = new HashMap<>();
  private final List<LlmToolCall> calls = new ArrayList<>();
  private PendingCall last;
  private String finishReason;
  private boolean done;
  private LlmUsage usage = LlmUsage.NONE;
  /** llama.cpp's {@code timings.cache_n}: prompt tokens its slot's KV cache served. */
  private long timingsCacheN;

  /**
   * An assembler.
   *
   * @param events receives the pieces as they are recognised
   * @param ids makes ids for tool calls the server sent without one
   */
  public OpenAiStreamAssembler(StreamEvents events, Supplier<String> ids) {
    this.events = events;
    this.ids = ids;
  }

  /**
   * Takes one event.
   *
   * @param type the SSE event type, or {@code null}
   * @param data the event's data
   */
  public void acceptEvent(String type, String data) {
    if (done) {
      return;
    }
    String d = data.strip();
    if (d.equals("[DONE]")) {
      done = true;
      flushCalls();
      return;
    }
    if (d.isEmpty()) {
      return;
    }
    JsonNode chunk = Json.parse(d, "OpenAI-compatible stream event");
    if (!chunk.isObject()) {
      throw Errors.protocol("OpenAI-compatible stream event is not a JSON object: "
          + Json.abbreviate(d, 200));
    }
    JsonNode error = chunk.get("error");
    if ((error != null && !error.isNull()) || "error".equals(type)
        || "error".equals(Json.text(chunk, "object"))) {
      // {"error":{...}}, an "error" event, or a flat {"object":"error","message",...} (SGLang,
      // some vLLM versions), which a [DONE] may follow: never a success
      ProviderError pe = ProviderError.fromJson(chunk);
      throw Errors.midStream(API, pe != null ? pe : new ProviderError(d, null, null));
    }
    JsonNode timings = chunk.get("timings");
    if (timings != null && timings.isObject()) {
      timingsCacheN = Json.number(timings, "cache_n");
    }
    JsonNode u = chunk.get("usage");
    if (u != null && u.isObject()) {
      usage = usage(u);
    }
    JsonNode choices = chunk.get("choices");
    if (choices != null && choices.isArray()) {
      for (JsonNode choice : choices) {
        JsonNode index = choice.get("index");
        if (index == null || !index.isNumber() || index.asInt() == 0) {
          acceptChoice(choice);
        }
      }
    }
  }

  /**
   * Takes an {@code error:} line: older llama.cpp servers reported a failure in a started stream
   * with a field of that name instead of {@code data:}, then closed the stream. Ends the stream
   * with {@link LlmException.Kind#STREAM}.
   *
   * @param value the field's value, a JSON error object or text
   */
  public void acceptErrorField(String value) {
    if (done) {
      return;
    }
    ProviderError pe = null;
    String v = value.strip();
    if (v.startsWith("{")) {
      pe = ProviderError.fromBody(v.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    throw Errors.midStream(API, pe != null ? pe
        : new ProviderError(v.isEmpty() ? "an error line without a message" : v, null, null));
  }

  private static LlmUsage usage(JsonNode u) {
    long reasoning = Json.number(u.get("completion_tokens_details"), "reasoning_tokens");
    if (reasoning == 0) {
      reasoning = Json.number(u, "reasoning_tokens");
    }
    long cached = Json.number(u.get("prompt_tokens_details"), "cached_tokens");
    if (cached == 0) {
      cached = Json.number(u, "prompt_cache_hit_tokens"); // DeepSeek
    }
    return LlmUsage.ofTokens(Json.number(u, "prompt_tokens"), Json.number(u, "completion_tokens"),
        reasoning, cached, 0);
  }

  private void acceptChoice(JsonNode choice) {
    JsonNode delta = choice.get("delta");
    if (delta == null || !delta.isObject()) {
      delta = choice.get("message");
    }
    if (delta != null && delta.isObject()) {
      acceptDelta(delta);
    }
    String reason = Json.text(choice, "finish_reason");
    if (reason != null && !reason.isEmpty()) {
      if (reason.equals("error")) {
        throw Errors.midStream(API, new ProviderError("the stream finished with reason \"error\"",
            null, null));
      }
      finishReason = reason;
      flushCalls();
    }
  }

  private void acceptDelta(JsonNode delta) {
    String reasoning = Json.text(delta, "reasoning_content");
    if (reasoning == null) {
      reasoning = Json.text(delta, "reasoning");
    }
    if (reasoning != null) {
      appendThinking(reasoning);
    } else {
      JsonNode details = delta.get("reasoning_details");
      if (details != null && details.isArray()) {
        for (JsonNode detail : details) {
          String t = Json.text(detail, "text");
          appendThinking(t != null ? t : Json.text(detail, "summary"));
        }
      }
    }
    String content = Json.text(delta, "content");
    if (content != null && !content.isEmpty()) {
      text.append(content);
      events.text(content);
    }
    JsonNode toolCalls = delta.get("tool_calls");
    if (toolCalls != null && toolCalls.isArray()) {
      for (JsonNode fragment : toolCalls) {
        acceptFragment(fragment);
      }
    }
  }

  private void appendThinking(String t) {
    if (t != null && !t.isEmpty()) {
      thinking.append(t);
      events.thinking(t);
    }
  }

  private void acceptFragment(JsonNode fragment) {
    JsonNode fn = fragment.get("function");
    String id = Json.text(fragment, "id");
    if (id != null && id.isEmpty()) {
      id = null;
    }
    String name = Json.text(fn, "name");
    JsonNode args = fn == null ? null : fn.get("arguments");
    JsonNode index = fragment.get("index");
    PendingCall call;
    if (index != null && index.isNumber()) {
      int i = index.asInt();
      call = byIndex.get(i);
      if (call == null || (id != null && call.id != null && !call.id.equals(id))) {
        call = start(id);
        byIndex.put(i, call);
      }
    } else if (id != null) {
      call = byId.get(id);
      if (call == null) {
        call = start(id);
      }
    } else {
      call = last != null ? last : start(null);
    }
    if (call.id == null && id != null) {
      call.id = id;
      byId.put(id, call);
    }
    if (call.name == null || call.name.isEmpty()) {
      call.name = name;
    }
    if (args != null && !args.isNull()) {
      call.arguments.append(args.isTextual() ? args.textValue() : args.toString());
    }
    last = call;
  }

  private PendingCall start(String id) {
    PendingCall call = new PendingCall();
    call.id = id;
    if (id != null) {
      byId.put(id, call);
    }
    pending.add(call);
    return call;
  }

  /** Hands on the pending tool calls, complete, in order of first appearance. */
  private void flushCalls() {
    for (PendingCall p : pending) {
      LlmToolCall call = new LlmToolCall(p.id != null ? p.id : ids.get(),
          p.name != null ? p.name : "", Json.arguments(p.arguments.toString()));
      calls.add(call);
      events.toolCall(call);
    }
    pending.clear();
    byIndex.clear();
    byId.clear();
    last = null;
  }

  /** Whether {@code [DONE]} arrived. */
  public boolean isDone() {
    return done;
  }

  /**
   * The end of the input: the completion, or a protocol error when neither a finish reason nor
   * {@code [DONE]} arrived.
   */
  public LlmCompletion finish() {
    if (!done && finishReason == null) {
      throw Errors.protocol("OpenAI-compatible stream ended before a finish reason or [DONE]");
    }
    flushCalls();
    return completion(FinishReasons.of(finishReason, !calls.isEmpty()));
  }

  /** What arrived so far (tool calls only once complete). */
  public LlmCompletion partial() {
    return completion(finishReason == null ? FinishReason.OTHER
        : FinishReasons.of(finishReason, !calls.isEmpty()));
  }

  private LlmCompletion completion(FinishReason reason) {
    LlmUsage u = usage;
    if (u.reported() && u.cacheReadTokens() == 0 && timingsCacheN > 0
        && timingsCacheN <= u.promptTokens()) {
      u = LlmUsage.ofTokens(u.promptTokens(), u.completionTokens(), u.reasoningTokens(),
          timingsCacheN, 0);
    }
    return new LlmCompletion(text.toString(), thinking.toString(), calls, u, reason,
        List.of(), finishReason);
  }

  private static final class PendingCall {
    String id;
    String name;
    final StringBuilder arguments = new StringBuilder();
  }
}
