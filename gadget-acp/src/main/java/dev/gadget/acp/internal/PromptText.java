package dev.gadget.acp.internal;

import com.fasterxml.jackson.databind.JsonNode;

/** The text of an ACP prompt's content blocks, for the agent loop. Pure. */
final class PromptText {
  private PromptText() {}

  /**
   * Text blocks as they are, a {@code resource_link} as a mention of its URI, an embedded text
   * {@code resource} in a {@code <file>} block; images and audio are named (Gadget does not send
   * them to the model).
   *
   * @throws RpcException when the prompt is not a list of content blocks or says nothing
   */
  static String of(JsonNode prompt) {
    if (prompt == null || !prompt.isArray()) {
      throw RpcException.invalidParams("session/prompt needs a \"prompt\": a list of content "
          + "blocks, such as [{\"type\": \"text\", \"text\": \"…\"}].");
    }
    StringBuilder sb = new StringBuilder();
    for (JsonNode block : prompt) {
      String type = block.path("type").asText("");
      switch (type) {
        case "text":
          sb.append(block.path("text").asText(""));
          break;
        case "resource_link":
          sb.append(sb.length() == 0 ? "" : "\n").append("[").append(block.path("name")
              .asText("file")).append("](").append(block.path("uri").asText("")).append(")");
          break;
        case "resource":
          JsonNode r = block.path("resource");
          if (r.has("text")) {
            sb.append("\n<file uri=\"").append(r.path("uri").asText("")).append("\">\n")
                .append(r.path("text").asText("")).append("\n</file>\n");
          } else {
            sb.append("\n(attached: ").append(r.path("uri").asText("a binary resource"))
                .append(", which Gadget cannot read)\n");
          }
          break;
        default:
          sb.append("\n(attached: a").append(type.equals("image") ? "n image" : " " + type)
              .append(", which Gadget does not pass to the model)\n");
      }
    }
    if (sb.toString().isBlank()) {
      throw RpcException.invalidParams("The prompt is empty: send at least one text block.");
    }
    return sb.toString();
  }
}
