package dev.gadget.core.llm.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a server's own documents say of its models: a {@code GET} of a small JSON document
 * (llama.cpp's {@code /props}, an OpenAI-compatible {@code /models}), and the context window a
 * model list gives: vLLM's {@code max_model_len}, OpenRouter's {@code context_length} (or its
 * {@code top_provider.context_length}), Groq's {@code context_window}, LM Studio's
 * {@code max_context_length}.
 */
public final class ModelLists {
  private static final Logger log = LoggerFactory.getLogger(ModelLists.class);
  /** The largest document read. */
  static final int MAX_BODY = 8 * 1024 * 1024;
  private static final List<String> WINDOW_FIELDS = List.of("max_model_len", "context_length",
      "context_window", "max_context_length");

  private ModelLists() {}

  /**
   * {@code GET uri} as JSON; {@code null} (logged at DEBUG) when the server does not answer
   * 200 with a JSON document of at most {@value #MAX_BODY} bytes within {@code timeout}.
   */
  public static JsonNode getJson(HttpClient http, URI uri, Map<String, String> headers,
      Duration timeout) {
    HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Accept", "application/json").GET();
    headers.forEach(req::header);
    try {
      HttpResponse<byte[]> res = http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
      if (res.statusCode() != 200 || res.body().length > MAX_BODY) {
        log.debug("GET {} answered {}", uri, res.statusCode());
        return null;
      }
      return Json.MAPPER.readTree(res.body());
    } catch (IOException | RuntimeException e) {
      log.debug("GET {} failed: {}", uri, e.toString());
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * The context window a model list ({@code {"data": [{"id", ...}]}}) gives {@code model}, or
   * empty when the model is not listed or its entry says none. Pure.
   */
  public static OptionalInt window(JsonNode list, String model) {
    JsonNode data = list == null ? null : list.get("data");
    if (data == null || !data.isArray()) {
      return OptionalInt.empty();
    }
    for (JsonNode m : data) {
      if (model.equals(Json.text(m, "id"))) {
        for (String field : WINDOW_FIELDS) {
          long n = Json.number(m, field);
          if (n > 0 && n <= Integer.MAX_VALUE) {
            return OptionalInt.of((int) n);
          }
        }
        long top = Json.number(m.get("top_provider"), "context_length");
        return top > 0 && top <= Integer.MAX_VALUE ? OptionalInt.of((int) top)
            : OptionalInt.empty();
      }
    }
    return OptionalInt.empty();
  }

  /**
   * The windows an OpenAI-compatible server's {@code GET {baseUrl}/models} gives, asked once
   * per model once the server answers (at most 256 models remembered). Thread-safe.
   */
  public static final class Listed {
    private static final int MAX_REMEMBERED = 256;
    private final java.util.Map<String, Integer> windows =
        new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code model}'s window as the list gives it, or empty (not listed, or no answer). */
    public OptionalInt window(HttpClient http, URI baseUrl, Map<String, String> headers,
        String model) {
      Integer listed = windows.get(model);
      if (listed == null) {
        JsonNode list = getJson(http, HttpSupport.resolve(baseUrl, "/models"), headers,
            Duration.ofSeconds(10));
        if (list == null) {
          return OptionalInt.empty();
        }
        listed = ModelLists.window(list, model).orElse(0);
        if (windows.size() < MAX_REMEMBERED) {
          windows.put(model, listed);
        }
      }
      return listed > 0 ? OptionalInt.of(listed) : OptionalInt.empty();
    }
  }
}
