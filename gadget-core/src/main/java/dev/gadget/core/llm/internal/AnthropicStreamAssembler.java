package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.LlmUsage;
import dev.gadget.core.llm.ThinkingBlock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles an Anthropic Messages API stream, one SSE event's data at a time: {@code message_start}
 * (the input usage), {@code content_block_start} / {@code _delta} / {@code _stop} for
 * {@code text} ({@code text_delta}), {@code thinking} ({@code thinking_delta} and
 * {@code signature_delta}), {@code redacted_thinking} and {@code tool_use}
 * ({@code input_json_delta}, split anywhere), {@code message_delta} (the stop reason and the
 * cumulative usage), {@code message_stop} (the end), {@code ping} (ignored) and {@code error}
 * (ends the stream with {@link LlmException.Kind#STREAM}; {@code overloaded_error},
 * {@code api_error}, {@code rate_limit_error} and {@code timeout_error} are retryable). Unknown
 * event and delta types are ignored, as Anthropic's versioning policy asks.
 *
 * <p>Each tool call is handed on at its block's stop, complete; each thinking block becomes a
 * {@link ThinkingBlock} with its signature, for the next request of the turn. The end of input
 * before {@code message_stop} (or at least a stop reason) is a {@link LlmException.Kind#PROTOCOL}
 * error. Not thread-safe; one per stream.
 */
public final class AnthropicStreamAssembler {
  private static final String API = "Anthropic";
  /** Error types that mean "try again later", with the HTTP status Anthropic gives them. */
  private static final Map<String, Integer> RETRYABLE = Map.of("overloaded_error", 529,
      "api_error", 500, "rate_limit_error", 429, "timeout_error", 504);

  private final StreamEvents events;
  private final StringBuilder text = new StringBuilder();
  private final StringBuilder thinking = new StringBuilder();
  private final Map<Integer, Block> open = new HashMap<>();
  private final List<LlmToolCall> calls = new ArrayList<>();
  private final List<ThinkingBlock> thinkingBlocks = new ArrayList<>();
  private final Map<String, Long> usage = new HashMap<>();
  private boolean usageReported;
  private String stopReason;
  private boolean done;

  /**
   * An assembler.
   *
   * @param events receives the pieces as they are recognised
   */
  public AnthropicStreamAssembler(StreamEvents events) {
    this.events = events;
  }

  /**
   * Takes one event.
   *
   * @param sseType the SSE event type, or {@code null} (the data's own {@code type} decides)
   * @param data the event's data
   */
  public void acceptEvent(String sseType, String data) {
    if (done || data.isBlank()) {
      return;
    }
    JsonNode event = Json.parse(data, "Anthropic stream event");
    if (!event.isObject()) {
      throw Errors.protocol("Anthropic stream event is not a JSON object: "
          + Json.abbreviate(data, 200));
    }
    String type = Json.text(event, "type");
    switch (type != null ? type : String.valueOf(sseType)) {
      case "message_start":
        takeUsage(event.path("message").get("usage"));
        break;
      case "content_block_start":
        startBlock(event.path("index").asInt(-1), event.path("content_block"));
        break;
      case "content_block_delta":
        delta(block(event), event.path("delta"));
        break;
      case "content_block_stop":
        stopBlock(event.path("index").asInt(-1));
        break;
      case "message_delta":
        String reason = Json.text(event.path("delta"), "stop_reason");
        if (reason != null) {
          stopReason = reason;
        }
        takeUsage(event.get("usage"));
        break;
      case "message_stop":
        done = true;
        break;
      case "error":
        throw error(event);
      default:
        break; // "ping", and event types added later
    }
  }

  private static LlmException error(JsonNode event) {
    ProviderError pe = ProviderError.fromJson(event);
    if (pe == null) {
      pe = new ProviderError(Json.abbreviate(event.toString(), 500), null, null);
    }
    return Errors.midStream(API, pe, pe.type() != null && RETRYABLE.containsKey(pe.type()));
  }

  private void startBlock(int index, JsonNode content) {
    Block b = new Block(Json.text(content, "type"));
    switch (String.valueOf(b.type)) {
      case "text":
        appendText(Json.text(content, "text"));
        break;
      case "thinking":
        appendThinking(b, Json.text(content, "thinking"));
        append(b.signature, Json.text(content, "signature"));
        break;
      case "redacted_thinking":
        append(b.data, Json.text(content, "data"));
        break;
      case "tool_use":
        b.id = Json.text(content, "id");
        b.name = Json.text(content, "name");
        b.initialInput = content.get("input");
        if (b.id == null || b.name == null) {
          throw Errors.protocol("Anthropic tool_use block without an id or a name: "
              + Json.abbreviate(content.toString(), 200));
        }
        break;
      default:
        break; // server tools' blocks and types added later: nothing for the caller
    }
    open.put(index, b);
  }

  private Block block(JsonNode event) {
    int index = event.path("index").asInt(-1);
    Block b = open.get(index);
    if (b == null) {
      throw Errors.protocol("Anthropic stream sent a delta for block " + index
          + ", which was never started");
    }
    return b;
  }

  private void delta(Block b, JsonNode delta) {
    switch (String.valueOf(Json.text(delta, "type"))) {
      case "text_delta":
        appendText(Json.text(delta, "text"));
        break;
      case "thinking_delta":
        appendThinking(b, Json.text(delta, "thinking"));
        break;
      case "signature_delta":
        append(b.signature, Json.text(delta, "signature"));
        break;
      case "input_json_delta":
        append(b.data, Json.text(delta, "partial_json"));
        break;
      default:
        break; // citations_delta and types added later
    }
  }

  private void stopBlock(int index) {
    Block b = open.remove(index);
    if (b == null) {
      throw Errors.protocol("Anthropic stream stopped block " + index
          + ", which was never started");
    }
    if ("tool_use".equals(b.type)) {
      JsonNode args = b.data.length() > 0 ? Json.arguments(b.data.toString())
          : Json.arguments(b.initialInput);
      LlmToolCall call = new LlmToolCall(b.id, b.name, args);
      calls.add(call);
      events.toolCall(call);
    } else if ("thinking".equals(b.type) && b.signature.length() > 0) {
      signed(ThinkingBlock.signed(b.text.toString(), b.signature.toString()));
    } else if ("redacted_thinking".equals(b.type) && b.data.length() > 0) {
      signed(ThinkingBlock.redacted(b.data.toString()));
    }
  }

  private void signed(ThinkingBlock block) {
    thinkingBlocks.add(block);
    events.signedThinking(block);
  }

  private void appendText(String t) {
    if (t != null && !t.isEmpty()) {
      text.append(t);
      events.text(t);
    }
  }

  private void appendThinking(Block b, String t) {
    if (t != null && !t.isEmpty()) {
      b.text.append(t);
      thinking.append(t);
      events.thinking(t);
    }
  }

  private static void append(StringBuilder sb, String s) {
    if (s != null) {
      sb.append(s);
    }
  }

  /** The usage fields of {@code message_start} and (cumulative, replacing) {@code message_delta}. */
  private void takeUsage(JsonNode u) {
    if (u == null || !u.isObject()) {
      return;
    }
    for (String field : List.of("input_tokens", "output_tokens", "cache_creation_input_tokens",
        "cache_read_input_tokens")) {
      JsonNode v = u.get(field);
      if (v != null && v.isNumber()) {
        usage.put(field, v.asLong());
        usageReported = true;
      }
    }
  }

  private LlmUsage usage() {
    if (!usageReported) {
      return LlmUsage.NONE;
    }
    long write = usage.getOrDefault("cache_creation_input_tokens", 0L);
    long read = usage.getOrDefault("cache_read_input_tokens", 0L);
    return LlmUsage.ofTokens(usage.getOrDefault("input_tokens", 0L) + write + read,
        usage.getOrDefault("output_tokens", 0L), 0, read, write);
  }

  /** Whether {@code message_stop} arrived. */
  public boolean isDone() {
    return done;
  }

  /**
   * The end of the input: the completion, or a protocol error when the stream ended before
   * {@code message_stop} and without a stop reason.
   */
  public LlmCompletion finish() {
    if (!done && stopReason == null) {
      throw Errors.protocol("Anthropic stream ended before message_stop");
    }
    return completion(FinishReasons.of(stopReason, !calls.isEmpty()));
  }

  /** What arrived so far (tool calls and thinking blocks only once their block stopped). */
  public LlmCompletion partial() {
    return completion(stopReason == null ? FinishReason.OTHER
        : FinishReasons.of(stopReason, !calls.isEmpty()));
  }

  private LlmCompletion completion(FinishReason reason) {
    return new LlmCompletion(text.toString(), thinking.toString(), calls, usage(), reason,
        thinkingBlocks, stopReason);
  }

  /** A content block between its start and its stop. */
  private static final class Block {
    final String type;
    final StringBuilder text = new StringBuilder();
    final StringBuilder signature = new StringBuilder();
    /** Redacted thinking's data, or a tool call's input JSON. */
    final StringBuilder data = new StringBuilder();
    String id;
    String name;
    JsonNode initialInput;

    Block(String type) {
      this.type = type;
    }
  }
}
