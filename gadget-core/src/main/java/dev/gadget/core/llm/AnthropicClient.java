package dev.gadget.core.llm;

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
 * sends the signed blocks back unchanged, as the API requires on tool turns. Usage includes
 * the prompt cache's reads and writes. A mid-stream {@code error} event ends the call with
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

  private AnthropicClient(Builder b) {
    this.http = b.freeze("/v1/messages", "Anthropic");
    this.maxTokens = b.maxTokens;
    this.thinkingBudget = b.thinkingBudget;
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
    byte[] body = RequestBodies.bytes(
        AnthropicRequests.body(request, maxTokens, thinkingBudget, http.params()));
    return http.engine().start(http.post(body, "text/event-stream", "x-api-key"),
        (events, info) -> StreamParser.anthropic(events, http.maxEventChars()), listener);
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return http.describe("AnthropicClient");
  }

  /**
   * Builds an {@link AnthropicClient}. Defaults: {@link #DEFAULT_BASE_URL}, no API key (set one:
   * Anthropic's API requires it), {@code max_tokens} {@value #DEFAULT_MAX_TOKENS}, reasoning
   * only when a request asks for it, connect timeout 10 s, first-byte timeout 2 min, idle
   * timeout 2 min, {@link RetryPolicy#DEFAULT}. {@link #apiKey} is sent as {@code x-api-key}.
   * Not thread-safe.
   */
  public static final class Builder extends HttpLlmClientBuilder<Builder> {
    private int maxTokens = DEFAULT_MAX_TOKENS;
    private int thinkingBudget;

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

    /** The client. */
    public AnthropicClient build() {
      return new AnthropicClient(this);
    }
  }
}
