package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Asks a provider for its models, in its own list format: Ollama's {@code GET /api/tags}
 * ({@code models[].name}), OpenAI-compatible {@code GET /v1/models} and Anthropic's
 * {@code GET /v1/models} ({@code data[].id}). Bounded: 5 s to connect, 15 s in all, 2 MB of
 * answer. Every failure is a {@link RequestException} in people's words; the key is never in it.
 */
final class ModelLister {
  private static final int MAX_BODY = 2 * 1024 * 1024;
  private static final Duration TIMEOUT = Duration.ofSeconds(15);

  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(5))
      .followRedirects(HttpClient.Redirect.NEVER)
      .build();

  /** The model ids, sorted. */
  List<String> list(String name, String kind, String baseUrl, String apiKey) {
    String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    String path = switch (kind) {
      case "ollama" -> "/api/tags";
      case "openai", "openai-responses", "llamacpp", "anthropic" ->
          base.endsWith("/v1") ? "/models" : "/v1/models";
      default -> throw new RequestException(
          "cannot list the models of a provider of kind '" + kind + "'");
    };
    URI uri;
    try {
      uri = URI.create(base + path);
      if (uri.getScheme() == null || !uri.getScheme().matches("https?")) {
        throw new IllegalArgumentException();
      }
    } catch (IllegalArgumentException e) {
      throw new RequestException("the base URL of " + name + " is not an http(s) URL");
    }
    HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET()
        .header("Accept", "application/json");
    if (apiKey != null && kind.equals("anthropic")) {
      req.header("x-api-key", apiKey).header("anthropic-version", "2023-06-01");
    } else if (apiKey != null) {
      req.header("Authorization", "Bearer " + apiKey);
    }
    String where = name + " at " + uri;
    HttpResponse<InputStream> res;
    try {
      res = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (HttpConnectTimeoutException | ConnectException e) {
      throw new RequestException("cannot reach " + where + ": the connection was refused or "
          + "timed out");
    } catch (HttpTimeoutException e) {
      throw new RequestException(where + " did not answer within 15 s");
    } catch (IOException e) {
      throw new RequestException("cannot reach " + where + ": " + e.getClass().getSimpleName()
          .replace("Exception", "").toLowerCase() + " error");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RequestException("the model list of " + name + " was interrupted");
    }
    byte[] body;
    try (InputStream in = res.body()) {
      body = in.readNBytes(MAX_BODY + 1);
    } catch (IOException e) {
      throw new RequestException(where + " broke off its answer");
    }
    if (res.statusCode() == 401 || res.statusCode() == 403) {
      throw new RequestException(where + " refused the API key (HTTP " + res.statusCode() + ")");
    }
    if (res.statusCode() != 200) {
      throw new RequestException(where + " answered HTTP " + res.statusCode());
    }
    if (body.length > MAX_BODY) {
      throw new RequestException(where + " sent a model list larger than 2 MB");
    }
    return parse(kind, body, where);
  }

  static List<String> parse(String kind, byte[] body, String where) {
    JsonNode root;
    try {
      root = GadgetJson.mapper().readTree(body);
    } catch (IOException e) {
      root = null;
    }
    String array = kind.equals("ollama") ? "models" : "data";
    String field = kind.equals("ollama") ? "name" : "id";
    if (root == null || !root.path(array).isArray()) {
      throw new RequestException(where + " did not answer with a model list");
    }
    TreeSet<String> ids = new TreeSet<>();
    for (JsonNode m : root.path(array)) {
      if (m.path(field).isTextual()) {
        ids.add(m.path(field).asText());
      }
    }
    return new ArrayList<>(ids);
  }
}
