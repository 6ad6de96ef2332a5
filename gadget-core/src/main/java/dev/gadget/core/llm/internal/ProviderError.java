package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;

/**
 * An error as a server described it, from any of the shapes servers use: OpenAI's
 * {@code {"error":{"message","type","code"}}} (code a string, a number or null), Ollama's
 * {@code {"error":"..."}}, flat objects ({@code {"message","type","code"}}, as vLLM sends),
 * FastAPI's {@code {"detail": ...}}, or plain text.
 *
 * @param message the server's message, or {@code null} when it gave none
 * @param type the error type, or {@code null}
 * @param code the error code as text, or {@code null}
 */
public record ProviderError(String message, String type, String code) {
  private static final int MAX_TEXT = 2000;

  /** Reads an error body; {@code null} when it is empty. */
  public static ProviderError fromBody(byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      return null;
    }
    if (text.startsWith("{")) {
      try {
        JsonNode node = Json.MAPPER.readTree(text);
        if (node != null && node.isObject()) {
          ProviderError e = fromJson(node);
          if (e != null) {
            return e;
          }
        }
      } catch (JsonProcessingException notJson) {
        // fall through: report the text
      }
    }
    return new ProviderError(Json.abbreviate(text, MAX_TEXT), null, null);
  }

  /** Reads an error object; {@code null} when {@code node} holds no recognisable error. */
  public static ProviderError fromJson(JsonNode node) {
    if (node == null || !node.isObject()) {
      return null;
    }
    JsonNode error = node.get("error");
    if (error != null && error.isTextual()) {
      return new ProviderError(error.textValue(), null, codeOf(node.get("code")));
    }
    if (error != null && error.isObject()) {
      ProviderError inner = flat(error);
      return inner != null ? inner : new ProviderError(error.toString(), null, null);
    }
    ProviderError flat = flat(node);
    if (flat != null) {
      return flat;
    }
    JsonNode detail = node.get("detail");
    if (detail != null && !detail.isNull()) {
      return new ProviderError(detail.isTextual() ? detail.textValue() : detail.toString(),
          null, null);
    }
    return null;
  }

  private static ProviderError flat(JsonNode n) {
    String message = Json.text(n, "message");
    if (message == null) {
      return null;
    }
    return new ProviderError(message, Json.text(n, "type"), codeOf(n.get("code")));
  }

  private static String codeOf(JsonNode code) {
    if (code == null || code.isNull() || code.isMissingNode()) {
      return null;
    }
    return code.isValueNode() ? code.asText() : code.toString();
  }

  /** The code as an HTTP status when it is one (OpenRouter puts the status in {@code code}). */
  public int codeAsStatus() {
    if (code == null) {
      return 0;
    }
    try {
      int c = Integer.parseInt(code);
      return c >= 100 && c <= 599 ? c : 0;
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** A one-line description: message, then type and code when present. */
  public String describe() {
    StringBuilder sb = new StringBuilder(message == null ? "(no message)" : message);
    if (type != null || code != null) {
      sb.append(" (");
      if (type != null) {
        sb.append("type ").append(type);
      }
      if (code != null) {
        sb.append(type != null ? ", " : "").append("code ").append(code);
      }
      sb.append(')');
    }
    return sb.toString();
  }
}
