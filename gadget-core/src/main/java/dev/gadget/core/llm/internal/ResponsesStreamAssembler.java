package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.LlmUsage;
import dev.gadget.core.llm.ThinkingBlock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Assembles a stream of OpenAI's Responses API, one SSE event's data at a time (the data's
 * {@code type} decides; there is no {@code [DONE]}).
 *
 * <ul>
 *   <li>{@code response.output_text.delta} (and {@code response.refusal.delta}) as text;
 *       {@code response.reasoning_summary_text.delta} as thinking, a blank line between two
 *       summary parts; {@code response.reasoning_text.delta} (raw reasoning, as vLLM and
 *       Ollama send for open models) as thinking too.
 *   <li>A {@code function_call} item from {@code response.output_item.added}, its arguments from
 *       {@code response.function_call_arguments.delta} (split anywhere) or {@code .done}; the
 *       call is handed on, complete, at its {@code response.output_item.done}, with its
 *       {@code call_id} as id.
 *   <li>A {@code reasoning} item's {@code response.output_item.done} that carries
 *       {@code encrypted_content} becomes a {@link ThinkingBlock} (its summary as text, the item
 *       as JSON as its data) that {@link ResponsesRequests} sends back as it came.
 *   <li>{@code response.completed} and {@code response.incomplete} end the stream with the
 *       usage ({@code input_tokens} with {@code input_tokens_details.cached_tokens},
 *       {@code output_tokens} with {@code output_tokens_details.reasoning_tokens}) and, for an
 *       incomplete one, {@code incomplete_details.reason} ({@code max_output_tokens} is
 *       {@link FinishReason#LENGTH}).
 *   <li>{@code response.failed} and {@code error} end it with {@link LlmException.Kind#STREAM}
 *       (retryable for {@code server_error}, {@code rate_limit_exceeded} and
 *       {@code server_is_overloaded}). The end of input before a terminal event is a
 *       {@link LlmException.Kind#PROTOCOL} error. Unknown events are ignored.
 * </ul>
 *
 * <p>Not thread-safe; one per stream.
 */
public final class ResponsesStreamAssembler {
  private static final String API = "OpenAI Responses API";
  private static final Set<String> RETRYABLE = Set.of("server_error", "rate_limit_exceeded",
      "server_is_overloaded");

  private final StreamEvents events;
  private final Supplier<String> ids;
  private final StringBuilder text = new StringBuilder();
  private final StringBuilder thinking = new StringBuilder();
  /** Function calls and reasoning items between their added and done events, by item id. */
  private final Map<String, Item> open = new LinkedHashMap<>();
  private final List<LlmToolCall> calls = new ArrayList<>();
  private final List<ThinkingBlock> thinkingBlocks = new ArrayList<>();
  private LlmUsage usage = LlmUsage.NONE;
  private String status;
  private String incompleteReason;
  private boolean done;

  /**
   * An assembler.
   *
   * @param events receives the pieces as they are recognised
   * @param ids makes ids for function calls the server sent without a {@code call_id}
   */
  public ResponsesStreamAssembler(StreamEvents events, Supplier<String> ids) {
    this.events = events;
    this.ids = ids;
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
    JsonNode event = Json.parse(data, "OpenAI Responses stream event");
    if (!event.isObject()) {
      throw Errors.protocol("OpenAI Responses stream event is not a JSON object: "
          + Json.abbreviate(data, 200));
    }
    String type = Json.text(event, "type");
    switch (type != null ? type : String.valueOf(sseType)) {
      case "response.output_text.delta", "response.refusal.delta" ->
          appendText(Json.text(event, "delta"));
      case "response.reasoning_summary_part.added" -> {
        if (event.path("summary_index").asInt(0) > 0) {
          appendThinking(item(event), "\n\n");
        }
      }
      case "response.reasoning_summary_text.delta", "response.reasoning_text.delta" ->
          appendThinking(item(event), Json.text(event, "delta"));
      case "response.output_item.added" -> added(event.path("item"));
      case "response.function_call_arguments.delta" -> {
        Item it = item(event);
        if (it != null && Json.text(event, "delta") != null) {
          it.arguments.append(Json.text(event, "delta"));
        }
      }
      case "response.function_call_arguments.done" -> {
        Item it = item(event);
        if (it != null && Json.text(event, "arguments") != null) {
          it.arguments.setLength(0);
          it.arguments.append(Json.text(event, "arguments"));
        }
      }
      case "response.output_item.done" -> itemDone(event.path("item"));
      case "response.completed", "response.incomplete" -> end(event.path("response"));
      case "response.failed" -> throw error(failed(event.path("response")));
      case "error" -> throw error(event.path("error").isObject() ? failed(event)
          : new ProviderError(Json.text(event, "message"), null, Json.text(event, "code")));
      default -> { } // created, in_progress, content parts, *.done and events added later
    }
  }

  private Item item(JsonNode event) {
    String id = Json.text(event, "item_id");
    return id == null ? null : open.get(id);
  }

  private void added(JsonNode item) {
    String type = Json.text(item, "type");
    String id = Json.text(item, "id");
    if (id != null && ("function_call".equals(type) || "reasoning".equals(type))) {
      Item it = new Item(type);
      it.callId = Json.text(item, "call_id");
      it.name = Json.text(item, "name");
      String args = Json.text(item, "arguments");
      if (args != null) {
        it.arguments.append(args);
      }
      open.put(id, it);
    }
  }

  private void itemDone(JsonNode item) {
    String type = Json.text(item, "type");
    String id = Json.text(item, "id");
    Item it = id == null ? null : open.remove(id);
    if ("function_call".equals(type)) {
      String callId = Json.text(item, "call_id");
      String name = Json.text(item, "name");
      String args = Json.text(item, "arguments");
      if (it != null) {
        callId = callId != null ? callId : it.callId;
        name = name != null ? name : it.name;
        args = args != null ? args : it.arguments.toString();
      }
      if (name == null) {
        throw Errors.protocol("OpenAI Responses function_call without a name: "
            + Json.abbreviate(item.toString(), 200));
      }
      LlmToolCall call = new LlmToolCall(callId != null ? callId : ids.get(), name,
          Json.arguments(args));
      calls.add(call);
      events.toolCall(call);
    } else if ("reasoning".equals(type) && Json.text(item, "encrypted_content") != null) {
      ObjectNode kept = Json.NODES.objectNode().put("type", "reasoning");
      kept.set("summary", item.path("summary").isArray() ? item.get("summary")
          : Json.NODES.arrayNode());
      kept.put("encrypted_content", Json.text(item, "encrypted_content"));
      String summary = it != null ? it.thinking.toString() : summaryText(item);
      ThinkingBlock block = new ThinkingBlock(summary, null, kept.toString());
      thinkingBlocks.add(block);
      events.signedThinking(block);
    }
  }

  private static String summaryText(JsonNode item) {
    List<String> parts = new ArrayList<>();
    item.path("summary").forEach(s -> parts.add(s.path("text").asText("")));
    return String.join("\n\n", parts);
  }

  /**
   * The reasoning item a thinking block of this API carries, or {@code null} when the block is
   * another server's (an Anthropic signature, or redacted data that is not such an item).
   */
  static JsonNode reasoningItem(ThinkingBlock b) {
    String data = b.redactedData();
    if (data == null || !data.startsWith("{")) {
      return null;
    }
    try {
      JsonNode item = Json.MAPPER.readTree(data);
      return item != null && "reasoning".equals(Json.text(item, "type")) ? item : null;
    } catch (java.io.IOException notOurs) {
      return null;
    }
  }

  private void end(JsonNode response) {
    done = true;
    status = Json.text(response, "status");
    incompleteReason = Json.text(response.path("incomplete_details"), "reason");
    JsonNode u = response.get("usage");
    if (u != null && u.isObject()) {
      usage = LlmUsage.ofTokens(Json.number(u, "input_tokens"), Json.number(u, "output_tokens"),
          Json.number(u.get("output_tokens_details"), "reasoning_tokens"),
          Json.number(u.get("input_tokens_details"), "cached_tokens"), 0);
    }
  }

  /** The error of a failed response, or of an event that nests it as {@code error}. */
  private static ProviderError failed(JsonNode holder) {
    ProviderError pe = ProviderError.fromJson(holder);
    return pe != null ? pe : new ProviderError("the response failed without saying why", null,
        null);
  }

  private static LlmException error(ProviderError pe) {
    ProviderError e = pe.message() == null && pe.code() == null
        ? new ProviderError("an error without a message", null, null) : pe;
    return Errors.midStream(API, e, e.code() != null && RETRYABLE.contains(e.code()));
  }

  private void appendText(String t) {
    if (t != null && !t.isEmpty()) {
      text.append(t);
      events.text(t);
    }
  }

  private void appendThinking(Item reasoning, String t) {
    if (t != null && !t.isEmpty()) {
      if (reasoning != null) {
        reasoning.thinking.append(t);
      }
      thinking.append(t);
      events.thinking(t);
    }
  }

  /** Whether a terminal event ({@code response.completed} or {@code .incomplete}) arrived. */
  public boolean isDone() {
    return done;
  }

  /** The end of the input: the completion, or a protocol error when it ended early. */
  public LlmCompletion finish() {
    if (!done) {
      throw Errors.protocol("OpenAI Responses stream ended before response.completed");
    }
    return completion(reason());
  }

  /** What arrived so far (each tool call and reasoning item only once it was done). */
  public LlmCompletion partial() {
    return completion(done ? reason() : FinishReason.OTHER);
  }

  private FinishReason reason() {
    if (incompleteReason != null) {
      return FinishReasons.of(incompleteReason.equals("max_output_tokens") ? "length"
          : incompleteReason, !calls.isEmpty());
    }
    return "completed".equals(status) || status == null
        ? FinishReasons.of(null, !calls.isEmpty()) : FinishReason.OTHER;
  }

  private LlmCompletion completion(FinishReason reason) {
    return new LlmCompletion(text.toString(), thinking.toString(), calls, usage, reason,
        thinkingBlocks, incompleteReason != null ? incompleteReason : status);
  }

  /** A function call or reasoning item between its added and done events. */
  private static final class Item {
    final String type;
    final StringBuilder arguments = new StringBuilder();
    final StringBuilder thinking = new StringBuilder();
    String callId;
    String name;

    Item(String type) {
      this.type = type;
    }
  }
}
