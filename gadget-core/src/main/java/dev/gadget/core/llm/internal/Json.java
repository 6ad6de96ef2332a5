package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmException;

/** Small JSON helpers shared by the assemblers. */
public final class Json {
  static final ObjectMapper MAPPER = GadgetJson.mapper();
  static final JsonNodeFactory NODES = MAPPER.getNodeFactory();

  private Json() {}

  /** Parses one JSON document, failing with {@link LlmException.Kind#PROTOCOL}. */
  static JsonNode parse(String json, String what) {
    try {
      JsonNode node = MAPPER.readTree(json);
      if (node == null || node.isMissingNode()) {
        throw new LlmException(LlmException.Kind.PROTOCOL, "empty " + what);
      }
      return node;
    } catch (JsonProcessingException e) {
      throw new LlmException(LlmException.Kind.PROTOCOL, "malformed " + what + ": "
          + abbreviate(json, 200), 0, null, false, null, e);
    }
  }

  /** A field's text when it is a string, else {@code null}. */
  static String text(JsonNode node, String field) {
    if (node == null) {
      return null;
    }
    JsonNode v = node.get(field);
    return v != null && v.isTextual() ? v.textValue() : null;
  }

  /** A field's value as a long when it is a number, else 0. */
  static long number(JsonNode node, String field) {
    if (node == null) {
      return 0;
    }
    JsonNode v = node.get(field);
    return v != null && v.isNumber() ? v.asLong() : 0;
  }

  /**
   * Tool-call arguments sent as JSON text: blank means an empty object; text that is not valid
   * JSON is kept as a string node so the tool can tell the model what was wrong.
   */
  public static JsonNode arguments(String text) {
    if (text == null || text.isBlank()) {
      return NODES.objectNode();
    }
    try {
      JsonNode node = MAPPER.readTree(text);
      return node == null || node.isMissingNode() ? NODES.textNode(text) : node;
    } catch (JsonProcessingException e) {
      return NODES.textNode(text);
    }
  }

  /** Tool-call arguments as a server sent them: an object as is, a string parsed. */
  static JsonNode arguments(JsonNode value) {
    if (value == null || value.isNull() || value.isMissingNode()) {
      return NODES.objectNode();
    }
    return value.isTextual() ? arguments(value.textValue()) : value;
  }

  /** At most {@code max} characters of {@code s}, for messages. */
  public static String abbreviate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "...";
  }
}
