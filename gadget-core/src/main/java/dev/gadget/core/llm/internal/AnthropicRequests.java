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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Builds the body of Anthropic's {@code POST /v1/messages} with {@code stream: true}. Pure.
 *
 * <ul>
 *   <li>System messages go to the top-level {@code system}, joined by a blank line.
 *   <li>An assistant message is its signed reasoning ({@code thinking} with its
 *       {@code signature}, or {@code redacted_thinking}), its text and its {@code tool_use}
 *       blocks, in that order. Signed reasoning goes back as it came; reasoning without a
 *       signature (an earlier turn's, or another provider's) is merged into the text as
 *       {@code <thinking>…</thinking>}, as seed 002 says. A message with no block at all is
 *       skipped (the API refuses empty content).
 *   <li>Tool results are {@code tool_result} blocks of a user message; consecutive results share
 *       one message, and a user message right after them joins it as a text block. A result
 *       that loads tools by reference ({@link LlmRequest#toolReferences()}) is their
 *       {@code tool_reference} blocks, and its text follows the message's results as a text
 *       block (a {@code tool_result} holds references or text, not both).
 *   <li>The request's tools, then its {@link LlmRequest#deferredTools()} marked
 *       {@code defer_loading} (Anthropic keeps those out of the prompt until a reference loads
 *       them; {@link #TOOL_SEARCH_BETA} goes with them).
 *   <li>{@code max_tokens} (required by the API) is the request's, else the client's default;
 *       with reasoning on, a default that leaves no room after the budget is raised by it.
 *   <li>Reasoning is {@code thinking: {type: enabled, budget_tokens}} when the request asks for
 *       it (or says nothing and the client has a default budget); the budget is the request's,
 *       else its level's ({@code low} 1024, {@code medium} 4096, {@code high} 16384), else the
 *       client's. It is left off when the conversation continues a tool turn whose assistant
 *       message has no signed reasoning (see {@link #continuesUnsignedToolTurn}).
 * </ul>
 */
public final class AnthropicRequests {
  /** The beta that {@code defer_loading} and {@code tool_reference} go with. */
  public static final String TOOL_SEARCH_BETA = "advanced-tool-use-2025-11-20";
  /** The smallest budget Anthropic accepts. */
  public static final int MIN_THINKING_BUDGET = 1024;

  private AnthropicRequests() {}

  /**
   * The body.
   *
   * @param r the request
   * @param defaultMaxTokens {@code max_tokens} when the request's params have none
   * @param defaultBudget the thinking budget when the request asks for reasoning without one,
   *     and (when positive) turns reasoning on for requests that do not say
   * @param extra top-level fields that override the rest
   */
  public static ObjectNode body(LlmRequest r, int defaultMaxTokens, int defaultBudget,
      Map<String, JsonNode> extra) {
    ObjectNode body = Json.NODES.objectNode();
    body.put("model", r.model());
    ModelParams p = r.params();
    Integer budget = budget(r, defaultBudget);
    int maxTokens = p.maxTokens() != null ? p.maxTokens()
        : budget != null && defaultMaxTokens <= budget ? budget + defaultMaxTokens
        : defaultMaxTokens;
    body.put("max_tokens", maxTokens);
    List<String> system = new ArrayList<>();
    ArrayNode messages = Json.NODES.arrayNode();
    Set<String> deferred = new HashSet<>();
    r.deferredTools().forEach(t -> deferred.add(t.name()));
    List<String> after = new ArrayList<>(); // texts of results that load tools by reference
    for (LlmMessage m : r.messages()) {
      if (m.role() != Role.TOOL) {
        flush(messages, after);
      }
      if (m.role() == Role.SYSTEM) {
        system.add(m.content());
      } else if (m.role() == Role.TOOL) {
        ObjectNode result = userBlocks(messages, true).addObject();
        result.put("type", "tool_result");
        result.put("tool_use_id", m.toolCallId());
        List<String> refs = r.toolReferences().getOrDefault(m.toolCallId(), List.of()).stream()
            .filter(deferred::contains).toList(); // a reference to a tool not sent is refused
        if (refs.isEmpty()) {
          result.put("content", m.content());
        } else {
          ArrayNode content = result.putArray("content");
          refs.forEach(name -> content.addObject().put("type", "tool_reference")
              .put("tool_name", name));
          after.add(m.content());
        }
      } else if (m.role() == Role.ASSISTANT) {
        assistant(messages, m);
      } else if (lastIsToolResults(messages)) {
        userBlocks(messages, false).addObject().put("type", "text").put("text", m.content());
      } else {
        messages.addObject().put("role", role(m)).put("content", m.content());
      }
    }
    flush(messages, after);
    if (!system.isEmpty()) {
      body.put("system", String.join("\n\n", system));
    }
    body.set("messages", messages);
    tools(body, r.tools(), r.deferredTools());
    body.put("stream", true);
    if (budget != null) {
      body.putObject("thinking").put("type", "enabled").put("budget_tokens", budget);
    }
    if (p.temperature() != null) {
      body.put("temperature", p.temperature());
    }
    if (p.topP() != null) {
      body.put("top_p", p.topP());
    }
    if (p.topK() != null) {
      body.put("top_k", p.topK());
    }
    extra.forEach(body::set);
    return body;
  }

  /** The thinking budget to send, or {@code null} for no reasoning. */
  static Integer budget(LlmRequest r, int defaultBudget) {
    Boolean wanted = r.thinkingWanted();
    if (Boolean.FALSE.equals(wanted) || (wanted == null && defaultBudget <= 0)
        || continuesUnsignedToolTurn(r.messages())) {
      return null;
    }
    if (r.thinkingBudget() != null) {
      return r.thinkingBudget();
    }
    String level = r.thinkLevel() == null ? "" : r.thinkLevel().toLowerCase(Locale.ROOT);
    switch (level) {
      case "low":
        return MIN_THINKING_BUDGET;
      case "medium":
        return 4096;
      case "high":
        return 16384;
      default:
        return Math.max(MIN_THINKING_BUDGET, defaultBudget);
    }
  }

  /**
   * Whether the conversation ends in tool results for an assistant message without signed
   * reasoning (a turn resumed after a crash, or begun by another client). With thinking on, the
   * API requires that message to start with a thinking block, so such a request goes without.
   */
  static boolean continuesUnsignedToolTurn(List<LlmMessage> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      LlmMessage m = messages.get(i);
      if (m.role() == Role.ASSISTANT) {
        return !m.toolCalls().isEmpty() && ours(m).isEmpty();
      }
      if (m.role() != Role.TOOL) {
        return false;
      }
    }
    return false;
  }

  private static void assistant(ArrayNode messages, LlmMessage m) {
    ArrayNode content = Json.NODES.arrayNode();
    List<ThinkingBlock> signed = ours(m);
    for (ThinkingBlock t : signed) {
      if (t.isRedacted()) {
        content.addObject().put("type", "redacted_thinking").put("data", t.redactedData());
      } else {
        content.addObject().put("type", "thinking").put("thinking", t.text())
            .put("signature", t.signature());
      }
    }
    String text = m.content();
    if (signed.isEmpty() && m.thinking() != null && !m.thinking().isEmpty()) {
      text = RequestBodies.merged(m.thinking(), text); // unsigned: seed 002's merge
    }
    if (!text.isEmpty()) {
      content.addObject().put("type", "text").put("text", text);
    }
    for (LlmToolCall c : m.toolCalls()) {
      ObjectNode use = content.addObject();
      use.put("type", "tool_use").put("id", c.id()).put("name", c.name());
      use.set("input", c.arguments().isObject() ? c.arguments() : Json.NODES.objectNode());
    }
    if (!content.isEmpty()) {
      ObjectNode msg = messages.addObject().put("role", "assistant");
      msg.set("content", content);
    }
  }

  /** {@code m}'s reasoning blocks that Anthropic signed: another provider's never go. */
  private static List<ThinkingBlock> ours(LlmMessage m) {
    return m.thinkingBlocks().stream()
        .filter(t -> ThinkingBlock.ANTHROPIC.equals(t.provider())).toList();
  }

  private static boolean lastIsToolResults(ArrayNode messages) {
    if (messages.isEmpty()) {
      return false;
    }
    JsonNode last = messages.get(messages.size() - 1);
    return "user".equals(Json.text(last, "role")) && last.path("content").isArray();
  }

  /**
   * The content array of the last user message of blocks, or of a new one. A tool result joins
   * only a message of tool results (they must come before any text).
   */
  private static ArrayNode userBlocks(ArrayNode messages, boolean forToolResult) {
    if (lastIsToolResults(messages)) {
      ArrayNode content = (ArrayNode) messages.get(messages.size() - 1).get("content");
      JsonNode lastBlock = content.get(content.size() - 1);
      if (!forToolResult || "tool_result".equals(Json.text(lastBlock, "type"))) {
        return content;
      }
    }
    ObjectNode msg = messages.addObject().put("role", "user");
    return msg.putArray("content");
  }

  /** Whether {@code body} sends a tool marked {@code defer_loading}. */
  public static boolean defersTools(ObjectNode body) {
    for (JsonNode t : body.path("tools")) {
      if (t.path("defer_loading").asBoolean(false)) {
        return true;
      }
    }
    return false;
  }

  /** The texts of results that loaded tools by reference, after the message's results. */
  private static void flush(ArrayNode messages, List<String> texts) {
    if (texts.isEmpty()) {
      return;
    }
    ArrayNode content = (ArrayNode) messages.get(messages.size() - 1).get("content");
    texts.stream().filter(t -> !t.isEmpty())
        .forEach(t -> content.addObject().put("type", "text").put("text", t));
    texts.clear();
  }

  private static void tools(ObjectNode body, List<ToolDefinition> defs,
      List<ToolDefinition> deferred) {
    if (defs.isEmpty() && deferred.isEmpty()) {
      return;
    }
    ArrayNode tools = body.putArray("tools");
    Set<String> sent = new HashSet<>();
    for (ToolDefinition t : defs) {
      tool(tools, t);
      sent.add(t.name());
    }
    for (ToolDefinition t : deferred) {
      if (sent.add(t.name())) {
        tool(tools, t).put("defer_loading", true);
      }
    }
  }

  private static ObjectNode tool(ArrayNode tools, ToolDefinition t) {
    ObjectNode tool = tools.addObject();
    tool.put("name", t.name());
    tool.put("description", t.description());
    tool.set("input_schema", t.parameters());
    return tool;
  }

  private static String role(LlmMessage m) {
    return m.role().name().toLowerCase(Locale.ROOT);
  }
}
