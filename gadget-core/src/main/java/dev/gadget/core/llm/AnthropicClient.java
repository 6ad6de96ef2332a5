package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.llm.internal.AnthropicCache;
import dev.gadget.core.llm.internal.AnthropicRequests;
import dev.gadget.core.llm.internal.RequestBodies;
import dev.gadget.core.llm.internal.StreamParser;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * An {@link LlmClient} for Anthropic's Messages API: {@code POST {baseUrl}/v1/messages} with
 * {@code stream: true}, read as server-sent events, authenticated with {@code x-api-key} and
 * {@code anthropic-version: 2023-06-01}.
 *
 * <p>It sends system messages as the top-level {@code system}, assistant messages as
 * {@code thinking}, {@code text} and {@code tool_use} blocks, tool results as {@code tool_result}
 * blocks of a user message, the tools with their {@code input_schema}, {@code max_tokens} (the
 * request's, else {@link Builder#maxTokens}), temperature, top_p and top_k, and
 * {@code thinking: {type: enabled, budget_tokens}} when the request asks for reasoning (see
 * {@link LlmRequest#thinkingBudget()} and {@link Builder#thinkingBudget}).
 *
 * <p>It streams {@code thinking_delta} as thinking and {@code text_delta} as text, hands on each
 * tool call when its block stops (its {@code input_json_delta} pieces joined), and keeps each
 * thinking block with its signature in {@link LlmCompletion#thinkingBlocks()}: put the reply back
 * into the conversation with {@link LlmMessage#assistant(LlmCompletion)} and the next request
 * sends the signed blocks back unchanged, as the API requires on tool turns.
 *
 * <p>It asks for prompt caching ({@link Builder#promptCaching}, on by default): up to four
 * {@code cache_control} breakpoints, on the last tool, the system prompt, the newest message of
 * the previous round and the newest message, so that each round of an agent turn reads the
 * previous round's prefix from the cache (billed at a tenth of the input price) and writes only
 * what it added. The cache lives five minutes by default, or an hour
 * ({@link Builder#cacheTtl}). Usage includes the prompt cache's reads and writes. A mid-stream {@code error} event ends the call with
 * {@link LlmException.Kind#STREAM} ({@link LlmException#providerType()} such as
 * {@code overloaded_error}, which is retryable).
 *
 * <pre>{@code
 * LlmClient llm = AnthropicClient.builder()
 *     .apiKey(System.getenv("ANTHROPIC_API_KEY"))
 *     .thinkingBudget(4096)              // reasoning on unless a request says otherwise
 *     .build();
 * }</pre>
 *
 * <p><b>Threading.</b> Immutable and thread-safe: one instance serves any number of concurrent
 * calls. A call holds no thread while it waits: the body is read by a
 * {@link java.util.concurrent.Flow.Subscriber} on the HTTP client's executor and timeouts run
 * on one shared timer thread. Listener callbacks run on those threads, one at a time per call.
 * See {@link LlmClient} for the contract and {@link RetryPolicy} for retries (HTTP 529
 * "overloaded" is retried like any 5xx).
 */
public final class AnthropicClient implements LlmClient {
  /** Anthropic's own API. */
  public static final URI DEFAULT_BASE_URL = URI.create("https://api.anthropic.com");
  /** The API version sent in {@code anthropic-version}. */
  public static final String API_VERSION = "2023-06-01";
  /** The default {@code max_tokens}. */
  public static final int DEFAULT_MAX_TOKENS = 8192;

  private final HttpLlmClientBuilder.Frozen http;
  private final int maxTokens;
  private final int thinkingBudget;
  private final boolean promptCaching;
  private final CacheTtl cacheTtl;
  private final ToolLoading toolLoading;

  private AnthropicClient(Builder b) {
    this.http = b.freeze("/v1/messages", "Anthropic");
    this.maxTokens = b.maxTokens;
    this.thinkingBudget = b.thinkingBudget;
    this.promptCaching = b.promptCaching;
    this.cacheTtl = b.cacheTtl;
    this.toolLoading = b.toolLoading;
  }

  /** How long Anthropic keeps a cached prompt prefix after its last use. */
  public enum CacheTtl {
    /** Five minutes, the API's default: a cache write costs 1.25 times the input price. */
    FIVE_MINUTES(null),
    /** One hour ({@code ttl: "1h"}): a cache write costs twice the input price. */
    ONE_HOUR("1h");

    private final String wire;

    CacheTtl(String wire) {
      this.wire = wire;
    }

    /** The {@code ttl} sent, or {@code null} for the API's default (five minutes). */
    public String wire() {
      return wire;
    }
  }

  /** A new builder, for {@link #DEFAULT_BASE_URL} unless told otherwise. */
  public static Builder builder() {
    return new Builder();
  }

  /** The base URL (without {@code /v1/messages}). */
  public URI baseUrl() {
    return http.baseUrl();
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
    ObjectNode json = AnthropicRequests.body(request, maxTokens, thinkingBudget, http.params());
    if (promptCaching) {
      AnthropicCache.mark(json, cacheTtl.wire());
    }
    byte[] body = RequestBodies.bytes(json);
    java.net.http.HttpRequest post = AnthropicRequests.defersTools(json)
        ? http.post(body, "text/event-stream", "x-api-key", "anthropic-beta",
            AnthropicRequests.TOOL_SEARCH_BETA)
        : http.post(body, "text/event-stream", "x-api-key");
    return http.engine().start(post,
        (events, info) -> StreamParser.anthropic(events, http.maxEventChars()), listener);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The published window of a well-known model ({@link ContextWindows}); {@code claude-*}
   * models have 200,000 tokens unless a beta header asks for more.
   */
  @Override
  public java.util.OptionalInt contextWindow(String model) {
    return ContextWindows.known(model);
  }

  /**
   * {@inheritDoc}
   *
   * <p>{@link ToolLoading#REFERENCE} against Anthropic's own API ({@code api.anthropic.com}),
   * {@link ToolLoading#APPEND} against any other server (a proxy or a server that speaks the
   * Messages API may not know {@code defer_loading}), unless {@link Builder#toolLoading} said.
   */
  @Override
  public ToolLoading toolLoading() {
    return toolLoading != null ? toolLoading
        : DEFAULT_BASE_URL.getHost().equalsIgnoreCase(http.baseUrl().getHost())
            ? ToolLoading.REFERENCE : ToolLoading.APPEND;
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return http.describe("AnthropicClient");
  }

  /**
   * Builds an {@link AnthropicClient}. Defaults: {@link #DEFAULT_BASE_URL}, no API key (set one:
   * Anthropic's API requires it), {@code max_tokens} {@value #DEFAULT_MAX_TOKENS}, reasoning
   * only when a request asks for it, prompt caching on with the five-minute TTL, connect
   * timeout 10 s, first-byte timeout 2 min, idle timeout 2 min, {@link RetryPolicy#DEFAULT}. {@link #apiKey} is sent as {@code x-api-key}.
   * Not thread-safe.
   */
  public static final class Builder extends HttpLlmClientBuilder<Builder> {
    private int maxTokens = DEFAULT_MAX_TOKENS;
    private int thinkingBudget;
    private boolean promptCaching = true;
    private CacheTtl cacheTtl = CacheTtl.FIVE_MINUTES;
    private ToolLoading toolLoading;

    private Builder() {
      super(DEFAULT_BASE_URL, Duration.ofMinutes(2));
      headers.put("anthropic-version", API_VERSION); // header(...) may override it
    }

    @Override
    Builder self() {
      return this;
    }

    /**
     * The {@code max_tokens} of requests whose {@link LlmRequest#params()} set none (default
     * {@value #DEFAULT_MAX_TOKENS}); the API requires one. With reasoning on, a default no larger
     * than the thinking budget is raised by the budget.
     */
    public Builder maxTokens(int maxTokens) {
      if (maxTokens < 1) {
        throw new IllegalArgumentException("maxTokens must be positive");
      }
      this.maxTokens = maxTokens;
      return this;
    }

    /**
     * The thinking budget ({@code budget_tokens}, at least 1024): reasoning is on for requests
     * that do not say ({@link LlmRequest#think()} {@code null}) and this is the budget of those
     * that ask without giving one. Default: off, and 1024 tokens for requests that ask.
     */
    public Builder thinkingBudget(int budgetTokens) {
      if (budgetTokens < AnthropicRequests.MIN_THINKING_BUDGET) {
        throw new IllegalArgumentException("a thinking budget must be at least "
            + AnthropicRequests.MIN_THINKING_BUDGET + " tokens");
      }
      this.thinkingBudget = budgetTokens;
      return this;
    }

    /**
     * Whether requests carry {@code cache_control} breakpoints (default true). Off, Anthropic
     * caches nothing and bills every round's whole prompt at the input price; a server that
     * imitates the API without caching may need it off.
     */
    public Builder promptCaching(boolean on) {
      this.promptCaching = on;
      return this;
    }

    /**
     * How long the cached prefix lives (default {@link CacheTtl#FIVE_MINUTES}). An hour costs
     * twice the input price per token written instead of 1.25 times, and pays when a chat's
     * turns are more than five minutes apart.
     */
    public Builder cacheTtl(CacheTtl ttl) {
      this.cacheTtl = Objects.requireNonNull(ttl, "ttl");
      return this;
    }

    /**
     * How a turn that defers tools loads them ({@link AnthropicClient#toolLoading()}); by
     * default {@link ToolLoading#REFERENCE} against Anthropic's own API, else
     * {@link ToolLoading#APPEND}. Say {@link ToolLoading#REFERENCE} for a server that knows
     * {@code defer_loading} and {@code tool_reference} at another address.
     */
    public Builder toolLoading(ToolLoading loading) {
      this.toolLoading = Objects.requireNonNull(loading, "loading");
      return this;
    }

    /** The client. */
    public AnthropicClient build() {
      return new AnthropicClient(this);
    }
  }
}
