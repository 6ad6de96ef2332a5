package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What Ollama's {@code POST /api/show} says of a model: its context window. */
public final class ModelInfo {
  private static final Logger log = LoggerFactory.getLogger(ModelInfo.class);
  private static final int MAX_BODY = 16 * 1024 * 1024;

  private ModelInfo() {}

  /**
   * The {@code <architecture>.context_length} of an {@code /api/show} reply's
   * {@code model_info}, or empty. Pure.
   */
  public static OptionalInt contextLength(JsonNode show) {
    JsonNode info = show == null ? null : show.get("model_info");
    if (info == null || !info.isObject()) {
      return OptionalInt.empty();
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = info.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().endsWith(".context_length") && e.getValue().canConvertToInt()
          && e.getValue().asInt() > 0) {
        return OptionalInt.of(e.getValue().asInt());
      }
    }
    return OptionalInt.empty();
  }

  /**
   * Asks the Ollama server at {@code baseUrl} for {@code model}'s context length; empty (logged
   * at DEBUG) when it cannot say.
   */
  public static OptionalInt ollamaContextLength(HttpClient http, URI baseUrl, String model,
      Map<String, String> headers, Duration timeout) {
    byte[] body = Json.NODES.objectNode().put("model", model).toString()
        .getBytes(StandardCharsets.UTF_8);
    HttpRequest.Builder req = HttpRequest.newBuilder(HttpSupport.resolve(baseUrl, "/api/show"))
        .timeout(timeout).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(req::header);
    try {
      HttpResponse<byte[]> res = http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
      if (res.statusCode() != 200 || res.body().length > MAX_BODY) {
        log.debug("/api/show for {} answered {}", model, res.statusCode());
        return OptionalInt.empty();
      }
      return contextLength(Json.MAPPER.readTree(res.body()));
    } catch (IOException | RuntimeException e) {
      log.debug("/api/show for {} failed: {}", model, e.toString());
      return OptionalInt.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalInt.empty();
    }
  }
}
