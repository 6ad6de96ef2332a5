package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ModelParams;
import java.util.Locale;
import java.util.Map;

/** Builds the JSON request bodies of Ollama's and the OpenAI-compatible chat APIs. Pure. */
public final class RequestBodies {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(RequestBodies.class);
  private static final java.util.concurrent.atomic.AtomicBoolean WARNED_TOO_MANY =
      new java.util.concurrent.atomic.AtomicBoolean();
  private RequestBodies() {}

  /**
   * Ollama {@code POST /api/chat} with {@code stream: true}: messages (assistant
   * {@code thinking} and {@code tool_calls} with object arguments; tool results with
   * {@code tool_name} and {@code tool_call_id}), tools, {@code think} (the level when the request
   * has one, else true or false), and sampling parameters, {@code num_predict}, the context
   * window as {@code num_ctx}, plus {@code extraOptions} in {@code options}; {@code extra} goes at the top level (such as
   * {@code keep_alive}).
   */
  public static ObjectNode ollama(LlmRequest r, Map<String, JsonNode> extraOptions,
      Map<String, JsonNode> extra) {
    ObjectNode body = Json.NODES.objectNode();
    body.put("model", r.model());
    ArrayNode messages = body.putArray("messages");
    for (LlmMessage m : r.messages()) {
      ObjectNode msg = messages.addObject();
      msg.put("role", role(m));
      msg.put("content", m.content());
      if (m.thinking() != null && !m.thinking().isEmpty()) {
        msg.put("thinking", m.thinking());
      }
      if (!m.toolCalls().isEmpty()) {
        ArrayNode calls = msg.putArray("tool_calls");
        for (LlmToolCall c : m.toolCalls()) {
          ObjectNode call = calls.addObject();
          call.put("id", c.id());
          ObjectNode fn = call.putObject("function");
          fn.put("name", c.name());
          fn.set("arguments", c.arguments().isObject() ? c.arguments() : Json.NODES.objectNode());
        }
      }
      if (m.toolCallId() != null) {
        msg.put("tool_call_id", m.toolCallId());
      }
      if (m.toolName() != null) {
        msg.put("tool_name", m.toolName());
      }
    }
    tools(body, r, Integer.MAX_VALUE);
    body.put("stream", true);
    if (r.thinkLevel() != null) {
      body.put("think", r.thinkLevel()); // "low" | "medium" | "high" (gpt-oss)
    } else if (r.thinkingWanted() != null) {
      body.put("think", r.thinkingWanted());
    }
    ModelParams p = r.params();
    ObjectNode options = Json.NODES.objectNode();
    if (p.temperature() != null) {
      options.put("temperature", p.temperature());
    }
    if (p.topP() != null) {
      options.put("top_p", p.topP());
    }
    if (p.topK() != null) {
      options.put("top_k", p.topK());
    }
    if (p.maxTokens() != null) {
      options.put("num_predict", p.maxTokens());
    }
    if (p.contextWindow() != null) {
      options.put("num_ctx", p.contextWindow());
    }
    extraOptions.forEach(options::set);
    if (!options.isEmpty()) {
      body.set("options", options);
    }
    extra.forEach(body::set);
    return body;
  }

  /**
   * OpenAI-compatible {@code POST /chat/completions} with {@code stream: true} and
   * {@code stream_options.include_usage}: messages (assistant {@code tool_calls} with arguments
   * as JSON text, content {@code null} when only tools were called; tool results with
   * {@code tool_call_id}), tools, {@code temperature} and {@code top_p} ({@code top_k} is not
   * part of the API), and {@code extra} at the top level. An assistant message's reasoning is
   * sent back as {@code reasoning_content} on turns that called tools when
   * {@code reasoningOnToolTurns} is set (DeepSeek requires it there); elsewhere, where the API has
   * no field for it, it is merged into the content as seed 002 says (see {@link #merged}).
   */
  public static ObjectNode openAi(LlmRequest r, boolean reasoningOnToolTurns,
      Map<String, JsonNode> extra) {
    return openAi(r, reasoningOnToolTurns, "max_tokens", extra);
  }

  /**
   * The same, with the output limit ({@link ModelParams#maxTokens()}) sent as
   * {@code maxTokensField} ({@code max_tokens}, or {@code max_completion_tokens} for OpenAI's
   * reasoning models) and {@link LlmRequest#thinkLevel()} as {@code reasoning_effort}.
   */
  public static ObjectNode openAi(LlmRequest r, boolean reasoningOnToolTurns,
      String maxTokensField, Map<String, JsonNode> extra) {
    ObjectNode body = Json.NODES.objectNode();
    body.put("model", r.model());
    ArrayNode messages = body.putArray("messages");
    for (LlmMessage m : r.messages()) {
      ObjectNode msg = messages.addObject();
      msg.put("role", role(m));
      boolean hasThinking = m.thinking() != null && !m.thinking().isEmpty();
      boolean reasoningField = reasoningOnToolTurns && !m.toolCalls().isEmpty();
      String content = hasThinking && !reasoningField ? merged(m.thinking(), m.content())
          : m.content();
      if (m.toolCalls().isEmpty() || !content.isEmpty()) {
        msg.put("content", content);
      } else {
        msg.putNull("content");
      }
      if (!m.toolCalls().isEmpty()) {
        if (reasoningField && hasThinking) {
          msg.put("reasoning_content", m.thinking());
        }
        ArrayNode calls = msg.putArray("tool_calls");
        for (LlmToolCall c : m.toolCalls()) {
          ObjectNode call = calls.addObject();
          call.put("id", c.id());
          call.put("type", "function");
          ObjectNode fn = call.putObject("function");
          fn.put("name", c.name());
          fn.put("arguments", argumentsText(c.arguments()));
        }
      }
      if (m.toolCallId() != null) {
        msg.put("tool_call_id", m.toolCallId());
      }
    }
    tools(body, r, dev.gadget.core.llm.OpenAiClient.MAX_TOOLS);
    body.put("stream", true);
    body.putObject("stream_options").put("include_usage", true);
    ModelParams p = r.params();
    if (p.temperature() != null) {
      body.put("temperature", p.temperature());
    }
    if (p.topP() != null) {
      body.put("top_p", p.topP());
    }
    if (p.maxTokens() != null) {
      body.put(maxTokensField, p.maxTokens());
    }
    if (r.thinkLevel() != null) {
      body.put("reasoning_effort", r.thinkLevel());
    }
    extra.forEach(body::set);
    return body;
  }

  /**
   * Seed 002's merge of reasoning into an assistant message's content, for APIs with no field
   * for it: {@code <thinking>thinking</thinking>\ncontent}.
   */
  public static String merged(String thinking, String content) {
    return "<thinking>" + thinking + "</thinking>\n" + content;
  }

  /** The body as UTF-8 JSON bytes. */
  public static byte[] bytes(ObjectNode body) {
    try {
      return Json.MAPPER.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a request body", e);
    }
  }

  private static void tools(ObjectNode body, LlmRequest r, int max) {
    if (r.tools().isEmpty()) {
      return;
    }
    if (r.tools().size() > max) {
      // the agent loop never asks for more (it defers the rest); a direct caller might
      String words = "a request offered {} tools; the API takes at most {}, so the last {} were "
          + "left out (an AgentLoop defers tools instead: see ToolDeferral)";
      if (WARNED_TOO_MANY.compareAndSet(false, true)) {
        log.warn(words, r.tools().size(), max, r.tools().size() - max);
      } else {
        log.debug(words, r.tools().size(), max, r.tools().size() - max);
      }
    }
    ArrayNode tools = body.putArray("tools");
    for (ToolDefinition t : r.tools().subList(0, Math.min(max, r.tools().size()))) {
      ObjectNode tool = tools.addObject();
      tool.put("type", "function");
      ObjectNode fn = tool.putObject("function");
      fn.put("name", t.name());
      fn.put("description", t.description());
      fn.set("parameters", t.parameters());
    }
  }

  private static String role(LlmMessage m) {
    return m.role().name().toLowerCase(Locale.ROOT);
  }

  /** Tool-call arguments as the JSON text OpenAI's APIs carry them in. */
  static String argumentsText(JsonNode arguments) {
    return arguments.isTextual() ? arguments.textValue() : arguments.toString();
  }
}
