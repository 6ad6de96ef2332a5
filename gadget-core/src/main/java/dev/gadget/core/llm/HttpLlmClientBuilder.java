package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.internal.HttpStreamEngine;
import dev.gadget.core.llm.internal.HttpSupport;
import dev.gadget.core.llm.internal.LlmThreads;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the builders of Gadget's HTTP clients ({@link OllamaClient.Builder},
 * {@link OpenAiClient.Builder}, {@link OpenAiResponsesClient.Builder},
 * {@link AnthropicClient.Builder}) share: where the server is, how to authenticate, the timeouts,
 * retries and limits. Each client's builder documents its own defaults. Not thread-safe.
 *
 * @param <B> the concrete builder, returned by every setter for chaining
 */
public abstract class HttpLlmClientBuilder<B extends HttpLlmClientBuilder<B>> {
  URI baseUrl;
  String apiKey;
  final Map<String, String> headers = new LinkedHashMap<>();
  final Map<String, JsonNode> params = new LinkedHashMap<>();
  HttpClient httpClient;
  Duration connectTimeout;
  Duration firstByteTimeout;
  Duration idleTimeout = Duration.ofMinutes(2);
  RetryPolicy retryPolicy = RetryPolicy.DEFAULT;
  int maxEventChars = HttpSupport.DEFAULT_MAX_EVENT_CHARS;
  /** The timer for timeouts and retry waits; tests may watch it. */
  ScheduledExecutorService scheduler = LlmThreads.scheduler();

  HttpLlmClientBuilder(URI defaultBaseUrl, Duration defaultFirstByteTimeout) {
    this.baseUrl = defaultBaseUrl;
    this.firstByteTimeout = defaultFirstByteTimeout;
  }

  abstract B self();

  /** The server's base URL; the client appends its endpoint's path. */
  public B baseUrl(String baseUrl) {
    return baseUrl(URI.create(Objects.requireNonNull(baseUrl, "baseUrl")));
  }

  /** The server's base URL; the client appends its endpoint's path. */
  public B baseUrl(URI baseUrl) {
    this.baseUrl = HttpSupport.checkBaseUrl(baseUrl);
    return self();
  }

  /**
   * The API key, sent as a bearer token ({@code x-api-key} for Anthropic). Never logged and never
   * in {@code toString()}.
   */
  public B apiKey(String apiKey) {
    this.apiKey = Objects.requireNonNull(apiKey, "apiKey");
    return self();
  }

  /** A header sent with every request (such as OpenRouter's {@code X-Title}). */
  public B header(String name, String value) {
    headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    return self();
  }

  /**
   * A top-level request field sent with every request, such as Ollama's {@code keep_alive} or
   * OpenAI's {@code max_tokens}. Overrides a field of the same name.
   */
  public B param(String name, Object value) {
    params.put(Objects.requireNonNull(name, "name"), HttpSupport.toJson(value));
    return self();
  }

  /**
   * The JDK HTTP client to use, shared with other code if you like. Its connect timeout, proxy
   * and TLS settings apply; do not also set {@link #connectTimeout}.
   */
  public B httpClient(HttpClient httpClient) {
    this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
    return self();
  }

  /** How long connecting may take (default 10 s). */
  public B connectTimeout(Duration timeout) {
    this.connectTimeout = HttpSupport.positive(timeout, "connectTimeout");
    return self();
  }

  /** From sending the request to the first byte of the stream. */
  public B firstByteTimeout(Duration timeout) {
    this.firstByteTimeout = HttpSupport.positive(timeout, "firstByteTimeout");
    return self();
  }

  /** The longest silence between two chunks of the stream (default 2 min). */
  public B idleTimeout(Duration timeout) {
    this.idleTimeout = HttpSupport.positive(timeout, "idleTimeout");
    return self();
  }

  /** When to retry before the stream starts (default {@link RetryPolicy#DEFAULT}). */
  public B retryPolicy(RetryPolicy policy) {
    this.retryPolicy = Objects.requireNonNull(policy, "policy");
    return self();
  }

  /** The longest line or event of the stream accepted, in characters (default 16 Mi). */
  public B maxEventChars(int max) {
    if (max < 1024) {
      throw new IllegalArgumentException("maxEventChars must be at least 1024");
    }
    this.maxEventChars = max;
    return self();
  }

  /** Checks the settings fit together; called by {@code build()}. */
  void check() {
    if (httpClient != null && connectTimeout != null) {
      throw new IllegalStateException(
          "connectTimeout applies only to the built-in HttpClient; set it on yours instead");
    }
  }

  /**
   * What a built client keeps of these settings, for the endpoint {@code path} of the server
   * named {@code serverName}. Checks the settings first.
   */
  Frozen freeze(String path, String serverName) {
    check();
    return new Frozen(baseUrl, HttpSupport.resolve(baseUrl, path), apiKey, Map.copyOf(headers),
        Map.copyOf(params), firstByteTimeout, maxEventChars, engine(serverName));
  }

  /**
   * A built client's settings: immutable; {@link #toString()} never shows the key.
   *
   * @param baseUrl the server's base URL
   * @param endpoint the URL requests go to
   * @param apiKey the API key, or {@code null}
   * @param headers headers sent with every request
   * @param params top-level request fields sent with every request
   * @param firstByteTimeout from sending to the first byte
   * @param maxEventChars the longest line or event accepted
   * @param engine runs the calls
   */
  record Frozen(URI baseUrl, URI endpoint, String apiKey, Map<String, String> headers,
      Map<String, JsonNode> params, Duration firstByteTimeout, int maxEventChars,
      HttpStreamEngine engine) {
    /** A POST of {@code body} with the API key as a bearer token. */
    HttpRequest post(byte[] body, String accept) {
      return HttpSupport.post(endpoint, body, accept, apiKey, headers, firstByteTimeout);
    }

    /** A POST of {@code body} with the API key in the header {@code authHeader}. */
    HttpRequest post(byte[] body, String accept, String authHeader) {
      return HttpSupport.post(endpoint, body, accept, authHeader, apiKey, headers,
          firstByteTimeout);
    }

    /**
     * A POST of {@code body} with the API key in the header {@code authHeader} and
     * {@code value} added to the comma-separated header {@code name} (such as
     * {@code anthropic-beta}), after what the settings give it.
     */
    HttpRequest post(byte[] body, String accept, String authHeader, String name, String value) {
      Map<String, String> all = new LinkedHashMap<>(headers);
      all.merge(name, value, (mine, added) -> mine + "," + added);
      return HttpSupport.post(endpoint, body, accept, authHeader, apiKey, all, firstByteTimeout);
    }

    /** The headers of every request with the API key as a bearer token, for GETs. */
    Map<String, String> bearerHeaders() {
      Map<String, String> all = new LinkedHashMap<>(headers);
      if (apiKey != null) {
        all.put("Authorization", "Bearer " + apiKey);
      }
      return all;
    }

    /** {@code Name{baseUrl}}, with {@code apiKey=***} when there is a key. */
    String describe(String name) {
      return name + "{" + baseUrl + (apiKey != null ? ", apiKey=***" : "") + "}";
    }

    @Override
    public String toString() {
      return describe("Frozen");
    }
  }

  /** The streaming engine these settings describe, for the server named {@code serverName}. */
  HttpStreamEngine engine(String serverName) {
    HttpClient http = httpClient != null ? httpClient
        : HttpSupport.newHttpClient(connectTimeout != null ? connectTimeout
            : Duration.ofSeconds(10));
    return new HttpStreamEngine(serverName, http,
        http.executor().orElse(LlmThreads.executor()), scheduler,
        firstByteTimeout, idleTimeout, retryPolicy, Clock.systemUTC());
  }
}
