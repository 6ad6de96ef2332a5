package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Puts Anthropic's prompt-cache breakpoints ({@code cache_control}) on a Messages API body built
 * by {@link AnthropicRequests}. Pure; changes the body in place.
 *
 * <p>At most {@value #MAX_BREAKPOINTS} breakpoints (the API's limit), in the order the API
 * builds its cache prefix:
 *
 * <ol>
 *   <li>the last tool not marked {@code defer_loading} (the tools are the start of the prefix;
 *       a deferred tool is not in it, and may not carry a breakpoint);
 *   <li>the system prompt (sent as one text block to carry it);
 *   <li>the newest message of the previous round: the user message before the last assistant
 *       message, whose prefix the previous request wrote to the cache, so that this request reads
 *       it however many blocks the round added (the API looks back only 20 blocks from a
 *       breakpoint);
 *   <li>the newest message, whose prefix this request writes for the next one.
 * </ol>
 *
 * <p>A breakpoint goes on the last block of a message that may carry one: thinking blocks may
 * not (the API refuses), so a message of thinking only carries none. A message whose content is a
 * plain string is sent as the one text block it stands for. A prefix shorter than the model's
 * minimum (1,024 to 4,096 tokens) is simply not cached, without an error.
 */
public final class AnthropicCache {
  /** The most breakpoints the API accepts in one request. */
  public static final int MAX_BREAKPOINTS = 4;

  private AnthropicCache() {}

  /**
   * Marks the breakpoints.
   *
   * @param body a Messages API body
   * @param ttl {@code null} for the default five minutes, or the API's {@code ttl} (such as
   *     {@code "1h"})
   * @return how many breakpoints were set
   */
  public static int mark(ObjectNode body, String ttl) {
    int set = 0;
    JsonNode tools = body.get("tools");
    if (tools instanceof ArrayNode) {
      for (int i = tools.size() - 1; i >= 0; i--) {
        JsonNode tool = tools.get(i);
        if (tool.isObject() && !tool.path("defer_loading").asBoolean(false)) {
          ((ObjectNode) tool).set("cache_control", control(ttl));
          set++;
          break;
        }
      }
    }
    JsonNode system = body.get("system");
    if (system != null && system.isTextual() && !system.textValue().isEmpty()) {
      ArrayNode blocks = body.putArray("system");
      blocks.addObject().put("type", "text").put("text", system.textValue())
          .set("cache_control", control(ttl));
      set++;
    }
    JsonNode messages = body.get("messages");
    if (!(messages instanceof ArrayNode) || messages.isEmpty()) {
      return set;
    }
    ArrayNode list = (ArrayNode) messages;
    int last = list.size() - 1;
    int lastAssistant = -1;
    for (int i = last; i >= 0; i--) {
      if ("assistant".equals(Json.text(list.get(i), "role"))) {
        lastAssistant = i;
        break;
      }
    }
    int previous = lastAssistant - 1;
    if (previous >= 0 && previous < last && set < MAX_BREAKPOINTS
        && "user".equals(Json.text(list.get(previous), "role"))
        && markMessage((ObjectNode) list.get(previous), ttl)) {
      set++;
    }
    if (set < MAX_BREAKPOINTS && markMessage((ObjectNode) list.get(last), ttl)) {
      set++;
    }
    return set;
  }

  /** The {@code cache_control} object for {@code ttl}. */
  static ObjectNode control(String ttl) {
    ObjectNode c = Json.NODES.objectNode().put("type", "ephemeral");
    if (ttl != null) {
      c.put("ttl", ttl);
    }
    return c;
  }

  private static boolean markMessage(ObjectNode message, String ttl) {
    JsonNode content = message.get("content");
    if (content != null && content.isTextual()) {
      if (content.textValue().isEmpty()) {
        return false;
      }
      ArrayNode blocks = message.putArray("content");
      blocks.addObject().put("type", "text").put("text", content.textValue());
      content = blocks;
    }
    if (!(content instanceof ArrayNode)) {
      return false;
    }
    for (int i = content.size() - 1; i >= 0; i--) {
      JsonNode block = content.get(i);
      String type = Json.text(block, "type");
      if ("thinking".equals(type) || "redacted_thinking".equals(type)) {
        continue; // thinking blocks cannot carry a breakpoint
      }
      if ("text".equals(type) && "".equals(Json.text(block, "text"))) {
        continue; // nor can empty text
      }
      ((ObjectNode) block).set("cache_control", control(ttl));
      return true;
    }
    return false;
  }
}
