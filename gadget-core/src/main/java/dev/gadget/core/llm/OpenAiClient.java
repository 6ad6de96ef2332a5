package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.internal.HttpStreamEngine;
import dev.gadget.core.llm.internal.HttpSupport;
import dev.gadget.core.llm.internal.LlmThreads;
import dev.gadget.core.llm.internal.RequestBodies;
import dev.gadget.core.llm.internal.StreamParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An {@link LlmClient} for OpenAI-compatible servers (OpenAI, OpenRouter, DeepSeek, vLLM,
 * llama.cpp, LM Studio, Ollama's {@code /v1}, ...): {@code POST {baseUrl}/chat/completions}
 * with {@code stream: true} and {@code stream_options.include_usage}, read as server-sent
 * events.
 *
 * <p>It sends the whole conversation (assistant tool calls with their arguments as JSON text,
 * tool results with {@code tool_call_id}), the tools as JSON schema, and temperature and top_p
 * (top_k is not part of this API; add it with {@link Builder#param} where a server takes it).
 * An assistant message's reasoning goes back as {@code reasoning_content} on turns that called
 * tools, as DeepSeek requires (see {@link Builder#sendReasoningOnToolTurns}).
 *
 * <p>It streams {@code reasoning_content} or {@code reasoning} as thinking (OpenRouter's
 * {@code reasoning_details} copy is not counted twice) and {@code content} as text, assembles
 * tool calls from their fragments (keyed by {@code index}, arguments split anywhere) and hands
 * each on, complete, at the finish reason. Usage comes from whichever chunk carries it. A
 * server that ignores {@code stream} and answers with one JSON completion is read as well.
 *
 * <pre>{@code
 * LlmClient llm = OpenAiClient.builder()
 *     .baseUrl("https://openrouter.ai/api/v1")
 *     .apiKey(System.getenv("OPENROUTER_API_KEY"))
 *     .build();
 * }</pre>
 *
 * <p><b>Threading.</b> Immutable and thread-safe: one instance serves any number of concurrent
 * calls. A call holds no thread while it waits: the body is read by a
 * {@link java.util.concurrent.Flow.Subscriber} on the HTTP client's executor and timeouts run
 * on one shared timer thread. Listener callbacks run on those threads, one at a time per call.
 * See {@link LlmClient} for the contract and {@link RetryPolicy} for retries.
 */
public final class OpenAiClient implements LlmClient {
  /** OpenAI's own API. */
  public static final URI DEFAULT_BASE_URL = URI.create("https://api.openai.com/v1");

  private final URI baseUrl;
  private final URI endpoint;
  private final String apiKey;
  private final Map<String, String> headers;
  private final Map<String, JsonNode> params;
  private final boolean reasoningOnToolTurns;
  private final Duration firstByteTimeout;
  private final int maxEventChars;
  private final HttpStreamEngine engine;

  private OpenAiClient(Builder b) {
    this.baseUrl = b.baseUrl;
    this.endpoint = HttpSupport.resolve(b.baseUrl, "/chat/completions");
    this.apiKey = b.apiKey;
    this.headers = Map.copyOf(b.headers);
    this.params = Map.copyOf(b.params);
    this.reasoningOnToolTurns = b.reasoningOnToolTurns;
    this.firstByteTimeout = b.firstByteTimeout;
    this.maxEventChars = b.maxEventChars;
    HttpClient http = b.httpClient != null ? b.httpClient
        : HttpSupport.newHttpClient(b.connectTimeout != null ? b.connectTimeout
            : Duration.ofSeconds(10));
    this.engine = new HttpStreamEngine("OpenAI-compatible server", http,
        http.executor().orElse(LlmThreads.executor()), LlmThreads.scheduler(),
        b.firstByteTimeout, b.idleTimeout, b.retryPolicy, Clock.systemUTC());
  }

  /** A new builder, for {@link #DEFAULT_BASE_URL} unless told otherwise. */
  public static Builder builder() {
    return new Builder();
  }

  /** The base URL (without {@code /chat/completions}). */
  public URI baseUrl() {
    return baseUrl;
  }

  /**
   * {@inheritDoc}
   *
   * <p>Returns at once; the request is sent on the HTTP client's threads.
   */
  @Override
  public LlmCall stream(LlmRequest request, LlmListener listener) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(listener, "listener");
    byte[] body = RequestBodies.bytes(RequestBodies.openAi(request, reasoningOnToolTurns, params));
    HttpRequest http = HttpSupport.post(endpoint, body, "text/event-stream", apiKey, headers,
        firstByteTimeout);
    return engine.start(http, (events, info) -> {
      String type = info.headers().firstValue("Content-Type").orElse("")
          .toLowerCase(Locale.ROOT);
      return type.startsWith("application/json")
          ? StreamParser.openAiJson(events, HttpStreamEngine::newToolCallId, maxEventChars)
          : StreamParser.openAi(events, HttpStreamEngine::newToolCallId, maxEventChars);
    }, listener);
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return "OpenAiClient{" + baseUrl + (apiKey != null ? ", apiKey=***" : "") + "}";
  }

  /**
   * Builds an {@link OpenAiClient}. Defaults: {@link #DEFAULT_BASE_URL}, no API key, connect
   * timeout 10 s, first-byte timeout 2 min, idle timeout 2 min, {@link RetryPolicy#DEFAULT},
   * reasoning sent back on tool turns. Not thread-safe.
   */
  public static final class Builder {
    private URI baseUrl = DEFAULT_BASE_URL;
    private String apiKey;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private final Map<String, JsonNode> params = new LinkedHashMap<>();
    private boolean reasoningOnToolTurns = true;
    private HttpClient httpClient;
    private Duration connectTimeout;
    private Duration firstByteTimeout = Duration.ofMinutes(2);
    private Duration idleTimeout = Duration.ofMinutes(2);
    private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;
    private int maxEventChars = HttpSupport.DEFAULT_MAX_EVENT_CHARS;

    private Builder() {}

    /**
     * The API's base URL, up to and including its version, such as
     * {@code https://api.openai.com/v1}; {@code /chat/completions} is appended.
     */
    public Builder baseUrl(String baseUrl) {
      return baseUrl(URI.create(Objects.requireNonNull(baseUrl, "baseUrl")));
    }

    /** The API's base URL; {@code /chat/completions} is appended. */
    public Builder baseUrl(URI baseUrl) {
      this.baseUrl = HttpSupport.checkBaseUrl(baseUrl);
      return this;
    }

    /** The API key, sent as a bearer token. Never logged and never in {@code toString()}. */
    public Builder apiKey(String apiKey) {
      this.apiKey = Objects.requireNonNull(apiKey, "apiKey");
      return this;
    }

    /** A header sent with every request (such as OpenRouter's {@code X-Title}). */
    public Builder header(String name, String value) {
      headers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * A top-level request field sent with every request, such as {@code max_tokens},
     * {@code reasoning_effort} or a server's {@code top_k}. Overrides a field of the same name.
     */
    public Builder param(String name, Object value) {
      params.put(Objects.requireNonNull(name, "name"), HttpSupport.toJson(value));
      return this;
    }

    /**
     * Whether an assistant message's reasoning goes back as {@code reasoning_content} on turns
     * that called tools (default true; DeepSeek's thinking mode requires it). It is sent only
     * when the message has reasoning, which servers that do not stream reasoning never give.
     */
    public Builder sendReasoningOnToolTurns(boolean send) {
      this.reasoningOnToolTurns = send;
      return this;
    }

    /**
     * The JDK HTTP client to use. Its connect timeout, proxy and TLS settings apply; do not
     * also set {@link #connectTimeout}.
     */
    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
      return this;
    }

    /** How long connecting may take (default 10 s). */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = HttpSupport.positive(timeout, "connectTimeout");
      return this;
    }

    /** From sending the request to the first byte of the stream (default 2 min). */
    public Builder firstByteTimeout(Duration timeout) {
      this.firstByteTimeout = HttpSupport.positive(timeout, "firstByteTimeout");
      return this;
    }

    /** The longest silence between two chunks of the stream (default 2 min). */
    public Builder idleTimeout(Duration timeout) {
      this.idleTimeout = HttpSupport.positive(timeout, "idleTimeout");
      return this;
    }

    /** When to retry before the stream starts (default {@link RetryPolicy#DEFAULT}). */
    public Builder retryPolicy(RetryPolicy policy) {
      this.retryPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** The largest event of the stream accepted, in characters (default 16 Mi). */
    public Builder maxEventChars(int max) {
      if (max < 1024) {
        throw new IllegalArgumentException("maxEventChars must be at least 1024");
      }
      this.maxEventChars = max;
      return this;
    }

    /** The client. */
    public OpenAiClient build() {
      if (httpClient != null && connectTimeout != null) {
        throw new IllegalStateException(
            "connectTimeout applies only to the built-in HttpClient; set it on yours instead");
      }
      return new OpenAiClient(this);
    }
  }
}
