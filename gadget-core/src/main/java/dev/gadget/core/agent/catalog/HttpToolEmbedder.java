package dev.gadget.core.agent.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.internal.HttpSupport;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link ToolEmbedder} over HTTP: Ollama's {@code POST /api/embed} ({@code {"model", "input":
 * [...]}} answered {@code {"embeddings": [[...]...]}}) or an OpenAI-compatible
 * {@code POST /v1/embeddings} ({@code {"model", "input": [...]}} answered
 * {@code {"data": [{"index", "embedding"}...]}}, which llama.cpp's server, vLLM and LM Studio
 * also speak). Each call waits at most its timeout (default 30 s; a connection that breaks
 * before the answer is tried once more) and reads at most
 * {@value #MAX_BODY_BYTES} bytes of answer. Thread-safe; the API key never appears in
 * {@link #toString()} or an error.
 */
public final class HttpToolEmbedder implements ToolEmbedder {
  /** The longest answer read. */
  public static final int MAX_BODY_BYTES = 64 * 1024 * 1024;
  /** Ollama's address when none is given. */
  public static final URI OLLAMA_DEFAULT = URI.create("http://127.0.0.1:11434");

  private final boolean openAi;
  private final URI baseUrl;
  private final URI endpoint;
  private final String model;
  private final String apiKey;
  private final Duration timeout;
  private final HttpClient http;

  private HttpToolEmbedder(boolean openAi, URI baseUrl, String model, String apiKey,
      Duration timeout) {
    this.openAi = openAi;
    this.baseUrl = baseUrl;
    this.endpoint = HttpSupport.resolve(HttpSupport.checkBaseUrl(baseUrl),
        openAi ? (baseUrl.getPath().endsWith("/v1") || baseUrl.getPath().endsWith("/v1/")
            ? "/embeddings" : "/v1/embeddings") : "/api/embed");
    if (Objects.requireNonNull(model, "model").isBlank()) {
      throw new IllegalArgumentException("an embedding model needs a name");
    }
    this.model = model;
    this.apiKey = apiKey;
    this.timeout = HttpSupport.positive(timeout, "timeout");
    this.http = HttpSupport.newHttpClient(Duration.ofSeconds(10));
  }

  /** Ollama's {@code /api/embed} at {@code baseUrl} (such as {@link #OLLAMA_DEFAULT}). */
  public static HttpToolEmbedder ollama(URI baseUrl, String model) {
    return new HttpToolEmbedder(false, baseUrl, model, null, Duration.ofSeconds(30));
  }

  /**
   * An OpenAI-compatible {@code /v1/embeddings} at {@code baseUrl} ({@code https://api.openai.com}
   * or a local server; a base that ends in {@code /v1} is taken as is), with {@code apiKey} as a
   * bearer token when not {@code null}.
   */
  public static HttpToolEmbedder openAi(URI baseUrl, String model, String apiKey) {
    return new HttpToolEmbedder(true, baseUrl, model, apiKey, Duration.ofSeconds(30));
  }

  /** This embedder with each call waiting at most {@code timeout}. */
  public HttpToolEmbedder withTimeout(Duration timeout) {
    return new HttpToolEmbedder(openAi, baseUrl, model, apiKey, timeout);
  }

  @Override
  public String model() {
    return model;
  }

  @Override
  public List<float[]> embed(List<String> texts) {
    if (texts.isEmpty()) {
      return List.of();
    }
    ObjectNode body = GadgetJson.mapper().createObjectNode().put("model", model);
    ArrayNode input = body.putArray("input");
    texts.forEach(input::add);
    HttpRequest req = HttpSupport.post(endpoint, body.toString().getBytes(StandardCharsets.UTF_8),
        "application/json", apiKey, Map.of(), timeout);
    HttpResponse<InputStream> res = null;
    for (int attempt = 1; res == null; attempt++) {
      try {
        res = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
      } catch (IOException e) {
        // once more: a server may close a kept-alive connection just as it is reused
        if (attempt == 2 || e instanceof java.net.http.HttpTimeoutException) {
          throw new EmbeddingException("the embedding model at " + endpoint + " could not be "
              + "reached: " + e.getMessage(), e);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new EmbeddingException("interrupted while waiting for the embedding model", e);
      }
    }
    byte[] bytes;
    try (InputStream in = res.body()) {
      bytes = in.readNBytes(MAX_BODY_BYTES + 1);
    } catch (IOException e) {
      throw new EmbeddingException("the embedding model at " + endpoint + " broke off its "
          + "answer: " + e.getMessage(), e);
    }
    if (bytes.length > MAX_BODY_BYTES) {
      throw new EmbeddingException("the embedding model at " + endpoint + " answered more than "
          + MAX_BODY_BYTES / (1024 * 1024) + " MB");
    }
    if (res.statusCode() != 200) {
      String said = new String(bytes, 0, Math.min(bytes.length, 300), StandardCharsets.UTF_8)
          .replaceAll("\\s+", " ").strip();
      throw new EmbeddingException("the embedding model at " + endpoint + " answered HTTP "
          + res.statusCode() + (said.isEmpty() ? "" : ": " + said));
    }
    return vectors(bytes, texts.size());
  }

  private List<float[]> vectors(byte[] bytes, int expected) {
    JsonNode root;
    try {
      root = GadgetJson.mapper().readTree(bytes);
    } catch (IOException e) {
      throw new EmbeddingException("the embedding model at " + endpoint + " answered "
          + "something that is not JSON");
    }
    List<float[]> out = new ArrayList<>();
    if (openAi) {
      float[][] byIndex = new float[expected][];
      for (JsonNode d : root.path("data")) {
        int i = d.path("index").asInt(-1);
        if (i >= 0 && i < expected) {
          byIndex[i] = vector(d.path("embedding"));
        }
      }
      for (float[] v : byIndex) {
        out.add(v);
      }
    } else {
      for (JsonNode e : root.path("embeddings")) {
        out.add(vector(e));
      }
    }
    if (out.size() != expected || out.contains(null)) {
      throw new EmbeddingException("the embedding model at " + endpoint + " answered "
          + out.stream().filter(Objects::nonNull).count() + " vectors for " + expected
          + " texts");
    }
    int dim = out.get(0).length;
    for (float[] v : out) {
      if (v.length == 0 || v.length != dim) {
        throw new EmbeddingException("the embedding model at " + endpoint + " answered "
            + "vectors of different lengths");
      }
    }
    return out;
  }

  private float[] vector(JsonNode array) {
    if (!array.isArray()) {
      return null;
    }
    float[] v = new float[array.size()];
    for (int i = 0; i < v.length; i++) {
      JsonNode x = array.get(i);
      if (!x.isNumber()) {
        throw new EmbeddingException("the embedding model at " + endpoint + " answered a "
            + "vector with something that is not a number");
      }
      v[i] = x.floatValue();
    }
    return v;
  }

  @Override
  public String toString() {
    return "HttpToolEmbedder{" + (openAi ? "openai" : "ollama") + ", " + endpoint + ", " + model
        + "}";
  }
}
