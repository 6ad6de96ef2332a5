package dev.gadget.core.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.internal.AnthropicCache;
import dev.gadget.core.llm.internal.AnthropicRequests;
import dev.gadget.core.llm.internal.RequestBodies;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** The bodies the clients send for a request, field by field, to compare requests with. */
final class ProviderBodies {
  private ProviderBodies() {}

  /** {@code field} of the body {@code provider}'s client sends for {@code r}, as JSON text. */
  static String json(String provider, LlmRequest r, String field) throws Exception {
    ObjectNode body = switch (provider) {
      case "openai" -> RequestBodies.openAi(r, false, Map.of());
      case "ollama" -> RequestBodies.ollama(r, Map.of(), Map.of());
      default -> {
        var b = AnthropicRequests.body(r, 4096, 0, Map.of());
        AnthropicCache.mark(b, null);
        // a plain string is the one text block it stands for (AnthropicCache marks it so)
        for (var m : b.withArray("messages")) {
          if (m.path("content").isTextual()) {
            String t = m.path("content").asText();
            ((ObjectNode) m).putArray("content").addObject()
                .put("type", "text").put("text", t);
          }
        }
        yield b;
      }
    };
    String text = new String(GadgetJson.mapper().writeValueAsBytes(body.get(field)),
        StandardCharsets.UTF_8);
    return text.replaceAll(",?\"cache_control\":\\{\"type\":\"ephemeral\"\\}", "");
  }

  /** A JSON array's text without its closing bracket. */
  static String open(String array) {
    return array.substring(0, array.length() - 1);
  }
}
