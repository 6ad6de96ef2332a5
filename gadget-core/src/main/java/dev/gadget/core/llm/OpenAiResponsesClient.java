package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.gadget.core.llm.internal.HttpStreamEngine;
import dev.gadget.core.llm.internal.ModelLists;
import dev.gadget.core.llm.internal.RequestBodies;
import dev.gadget.core.llm.internal.ResponsesRequests;
import dev.gadget.core.llm.internal.StreamParser;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An {@link LlmClient} for OpenAI's Responses API: {@code POST {baseUrl}/responses} with
 * {@code stream: true} and {@code store: false}, read as server-sent events, authenticated with
 * a bearer token. Where Chat Completions has no field to send a reasoning model's reasoning
 * back, this API does: the reply's {@code reasoning} items come back encrypted
 * ({@code include: ["reasoning.encrypted_content"]}), are kept in
 * {@link LlmCompletion#thinkingBlocks()}, and go back unchanged with the next request of the
 * turn, so the model goes on from its reasoning after each tool call instead of starting over.
 *
 * <p>It sends the conversation as input items (tool calls as {@code function_call}, results as
 * {@code function_call_output}), the tools as non-strict functions, the output limit as
 * {@code max_output_tokens}, temperature and top_p when set, {@link LlmRequest#thinkLevel()} as
 * {@code reasoning.effort} and asks reasoning models for a summary
 * ({@code reasoning.summary: "auto"}), which streams as thinking. Text and tool calls stream as
 * with the other clients; usage includes the cached input tokens. A request's
 * {@link LlmRequest#cacheKey()} goes out as {@code prompt_cache_key} (on for
 * {@code api.openai.com}; see {@link Builder#promptCacheKey}).
 *
 * <pre>{@code
 * LlmClient llm = OpenAiResponsesClient.builder()
 *     .apiKey(System.getenv("OPENAI_API_KEY"))
 *     .build();
 * }</pre>
 *
 * <p><b>Threading.</b> Immutable and thread-safe, like {@link OpenAiClient}: a call holds no
 * thread while it waits; listener callbacks run one at a time per call on the HTTP client's
 * threads. See {@link LlmClient} for the contract and {@link RetryPolicy} for retries (408, 409,
 * 429 and 5xx, or as the server's {@code x-should-retry} says).
 */
public final class OpenAiResponsesClient implements LlmClient {
  /** OpenAI's own API. */
  public static final URI DEFAULT_BASE_URL = OpenAiClient.DEFAULT_BASE_URL;
  private static final Pattern REASONING = Pattern.compile(
      "(o[1-9]|gpt-5(?!-chat)|codex|gpt-oss)([-.:_].*)?|.*-codex(-.*)?");

  private final HttpLlmClientBuilder.Frozen http;
  private final Boolean reasoning;
  private final boolean promptCacheKey;
  private final boolean reasoningSummary;
  private final ModelLists.Listed listedWindows = new ModelLists.Listed();

  private OpenAiResponsesClient(Builder b) {
    this.http = b.freeze("/responses", "OpenAI Responses API");
    this.reasoning = b.reasoning;
    this.reasoningSummary = b.reasoningSummary;
    this.promptCacheKey = b.promptCacheKey != null ? b.promptCacheKey
        : OpenAiClient.isOpenAi(http.baseUrl());
  }

  /** A new builder, for {@link #DEFAULT_BASE_URL} unless told otherwise. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Whether {@code model} is one of OpenAI's models that reason (the o-series, {@code gpt-5*}
   * but not {@code gpt-5-chat*}, the Codex models, gpt-oss), a vendor prefix such as
   * OpenRouter's {@code openai/} ignored.
   */
  public static boolean isReasoningModel(String model) {
    String m = Objects.requireNonNull(model, "model").toLowerCase(Locale.ROOT);
    return REASONING.matcher(m.substring(m.lastIndexOf('/') + 1)).matches();
  }

  /** The base URL (without {@code /responses}). */
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
    boolean reasons = reasoning != null ? reasoning : isReasoningModel(request.model());
    Map<String, JsonNode> extra = new LinkedHashMap<>();
    if (promptCacheKey && request.cacheKey() != null) {
      extra.put("prompt_cache_key", TextNode.valueOf(request.cacheKey()));
    }
    extra.putAll(http.params());
    byte[] body = RequestBodies.bytes(ResponsesRequests.body(request, reasons, reasoningSummary,
        extra));
    return http.engine().start(http.post(body, "text/event-stream"),
        (events, info) -> StreamParser.responses(events, HttpStreamEngine::newToolCallId,
            http.maxEventChars()), listener);
  }

  /**
   * {@inheritDoc}
   *
   * <p>What the server's {@code GET /models} gives the model (vLLM, OpenRouter; OpenAI's says
   * none), else the published window of a well-known model ({@link ContextWindows}).
   */
  @Override
  public java.util.OptionalInt contextWindow(String model) {
    java.util.OptionalInt listed = listedWindows.window(http.engine().httpClient(),
        http.baseUrl(), http.bearerHeaders(), model);
    return listed.isPresent() ? listed : ContextWindows.known(model);
  }

  /** {@value OpenAiClient#MAX_TOOLS}: the Responses API takes no more function tools. */
  @Override
  public int maxTools() {
    return OpenAiClient.MAX_TOOLS;
  }

  /** {@link ToolLoading#IN_RESULT}: the tools come before the input, as in Chat Completions. */
  @Override
  public ToolLoading toolLoading() {
    return ToolLoading.IN_RESULT;
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return http.describe("OpenAiResponsesClient");
  }

  /**
   * Builds an {@link OpenAiResponsesClient}. Defaults: {@link #DEFAULT_BASE_URL}, no API key,
   * reasoning asked back by the model's name ({@link #isReasoningModel}),
   * {@code prompt_cache_key} for {@code api.openai.com} only, connect timeout 10 s, first-byte
   * timeout 2 min (reasoning can take a while before the first event), idle timeout 2 min,
   * {@link RetryPolicy#DEFAULT}. Not thread-safe.
   */
  public static final class Builder extends HttpLlmClientBuilder<Builder> {
    private Boolean reasoning;
    private Boolean promptCacheKey;
    private boolean reasoningSummary = true;

    private Builder() {
      super(DEFAULT_BASE_URL, Duration.ofMinutes(2));
    }

    @Override
    Builder self() {
      return this;
    }

    /**
     * Whether the models reason, so that their reasoning is asked for (a summary, and the
     * encrypted items to send back). Default: by the model's name
     * ({@link OpenAiResponsesClient#isReasoningModel}); a model that does not reason refuses
     * the {@code reasoning} field.
     */
    public Builder reasoning(boolean reasoning) {
      this.reasoning = reasoning;
      return this;
    }

    /**
     * Whether a reasoning model is asked for a summary of its reasoning
     * ({@code reasoning.summary: "auto"}), which streams as thinking (default true). OpenAI
     * refuses it for some models until the organization is verified ("Your organization must be
     * verified to generate reasoning summaries", HTTP 400): turn it off there; the encrypted
     * reasoning is carried across tool calls either way.
     */
    public Builder reasoningSummary(boolean summary) {
      this.reasoningSummary = summary;
      return this;
    }

    /**
     * Whether a request's {@link LlmRequest#cacheKey()} is sent as {@code prompt_cache_key}.
     * Default: only when the base URL's host is {@code api.openai.com}.
     */
    public Builder promptCacheKey(boolean send) {
      this.promptCacheKey = send;
      return this;
    }

    /** The client. */
    public OpenAiResponsesClient build() {
      return new OpenAiResponsesClient(this);
    }
  }
}
