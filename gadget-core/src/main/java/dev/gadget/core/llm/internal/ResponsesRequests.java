package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.ThinkingBlock;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.Role;
import java.util.Map;

/**
 * Builds the body of OpenAI's Responses API, {@code POST /responses} with {@code stream: true}
 * and {@code store: false}. Pure.
 *
 * <ul>
 *   <li>System and user messages are {@code {role, content}} input items; an assistant message
 *       is its reasoning items (as the server returned them, see
 *       {@link ResponsesStreamAssembler}), then a {@code message} item with its text as
 *       {@code output_text}, then a {@code function_call} item per call (arguments as JSON
 *       text); a tool result is a {@code function_call_output} item. Reasoning without an
 *       item (another provider's, or an earlier turn's) is merged into the text as
 *       {@code <thinking>…</thinking>}, as seed 002 says.
 *   <li>Tools are flat {@code {type: function, name, description, parameters, strict: false}}
 *       (the Responses API makes tools strict unless told, which most schemas do not satisfy).
 *   <li>For a model that reasons: {@code reasoning: {summary: "auto", effort?}} and
 *       {@code include: ["reasoning.encrypted_content"]}, so the reasoning comes back encrypted
 *       and is sent again with the next request of the turn (nothing is stored at OpenAI). For
 *       another model, {@code reasoning.effort} only when the request gives a level.
 *   <li>{@code max_output_tokens}, {@code temperature} and {@code top_p} when set; {@code extra}
 *       (such as {@code prompt_cache_key}) at the top level, overriding the rest.
 * </ul>
 */
public final class ResponsesRequests {
  private ResponsesRequests() {}

  /**
   * The body.
   *
   * @param r the request
   * @param reasoningModel whether the model reasons (then its reasoning is asked back encrypted)
   * @param summary whether a reasoning model is asked for a summary of its reasoning
   * @param extra top-level fields that override the rest
   */
  public static ObjectNode body(LlmRequest r, boolean reasoningModel, boolean summary,
      Map<String, JsonNode> extra) {
    ObjectNode body = Json.NODES.objectNode();
    body.put("model", r.model());
    ArrayNode input = body.putArray("input");
    for (LlmMessage m : r.messages()) {
      if (m.role() == Role.TOOL) {
        input.addObject().put("type", "function_call_output").put("call_id", m.toolCallId())
            .put("output", m.content());
      } else if (m.role() == Role.ASSISTANT) {
        assistant(input, m);
      } else {
        input.addObject().put("role", m.role() == Role.SYSTEM ? "system" : "user")
            .put("content", m.content());
      }
    }
    if (!r.tools().isEmpty()) {
      ArrayNode tools = body.putArray("tools");
      // the API refuses more than 128 function tools, as Chat Completions does
      for (ToolDefinition t : r.tools().subList(0, Math.min(r.tools().size(),
          dev.gadget.core.llm.OpenAiClient.MAX_TOOLS))) {
        ObjectNode tool = tools.addObject().put("type", "function").put("name", t.name())
            .put("description", t.description());
        tool.set("parameters", t.parameters());
        tool.put("strict", false);
      }
    }
    body.put("stream", true);
    body.put("store", false);
    boolean wanted = !Boolean.FALSE.equals(r.thinkingWanted());
    if (reasoningModel || r.thinkLevel() != null) {
      ObjectNode reasoning = body.putObject("reasoning");
      if (r.thinkLevel() != null) {
        reasoning.put("effort", r.thinkLevel());
      }
      if (reasoningModel && wanted && summary) {
        reasoning.put("summary", "auto");
      }
    }
    if (reasoningModel) {
      body.putArray("include").add("reasoning.encrypted_content");
    }
    ModelParams p = r.params();
    if (p.maxTokens() != null) {
      body.put("max_output_tokens", p.maxTokens());
    }
    if (p.temperature() != null) {
      body.put("temperature", p.temperature());
    }
    if (p.topP() != null) {
      body.put("top_p", p.topP());
    }
    extra.forEach(body::set);
    return body;
  }

  private static void assistant(ArrayNode input, LlmMessage m) {
    boolean items = false;
    for (ThinkingBlock b : m.thinkingBlocks()) {
      JsonNode item = ResponsesStreamAssembler.reasoningItem(b);
      if (item != null) {
        input.add(item);
        items = true;
      }
    }
    String text = m.content();
    if (!items && m.thinking() != null && !m.thinking().isEmpty()) {
      text = RequestBodies.merged(m.thinking(), text);
    }
    if (!text.isEmpty()) {
      ObjectNode msg = input.addObject().put("type", "message").put("role", "assistant");
      msg.putArray("content").addObject().put("type", "output_text").put("text", text);
    }
    for (LlmToolCall c : m.toolCalls()) {
      input.addObject().put("type", "function_call").put("call_id", c.id())
          .put("name", c.name()).put("arguments", RequestBodies.argumentsText(c.arguments()));
    }
  }
}
