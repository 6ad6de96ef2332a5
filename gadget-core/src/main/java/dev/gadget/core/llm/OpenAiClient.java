package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.gadget.core.llm.internal.HttpStreamEngine;
import dev.gadget.core.llm.internal.LlamaCppSlots;
import dev.gadget.core.llm.internal.ModelLists;
import dev.gadget.core.llm.internal.RequestBodies;
import dev.gadget.core.llm.internal.StreamParser;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * An {@link LlmClient} for OpenAI-compatible servers (OpenAI, OpenRouter, DeepSeek, vLLM,
 * llama.cpp, LM Studio, Ollama's {@code /v1}, ...): {@code POST {baseUrl}/chat/completions}
 * with {@code stream: true} and {@code stream_options.include_usage}, read as server-sent
 * events.
 *
 * <p>It sends the whole conversation (assistant tool calls with their arguments as JSON text,
 * tool results with {@code tool_call_id}), the tools as JSON schema, temperature and top_p
 * (top_k is not part of this API; add it with {@link Builder#param} where a server takes it),
 * the output limit as {@code max_tokens} (see {@link Builder#maxTokensField}) and
 * {@link LlmRequest#thinkLevel()} as {@code reasoning_effort}.
 * An assistant message's reasoning goes back as {@code reasoning_content} on turns that called
 * tools, as DeepSeek requires (see {@link Builder#sendReasoningOnToolTurns}).
 *
 * <p>It streams {@code reasoning_content} or {@code reasoning} as thinking (OpenRouter's
 * {@code reasoning_details} copy is not counted twice) and {@code content} as text, assembles
 * tool calls from their fragments (keyed by {@code index}, arguments split anywhere) and hands
 * each on, complete, at the finish reason. Usage comes from whichever chunk carries it. A
 * server that ignores {@code stream} and answers with one JSON completion is read as well.
 *
 * <p><b>Prompt caching.</b> A request's {@link LlmRequest#cacheKey()} goes out as
 * {@code prompt_cache_key}, with which OpenAI routes a chat's requests to the machine that holds
 * its prefix ({@link Builder#promptCacheKey}: on for {@code api.openai.com} only, since a strict
 * server refuses fields it does not know). For a llama.cpp server ({@link Builder#llamaCpp}),
 * requests carry {@code cache_prompt: true} and {@code id_slot}: each chat keeps a slot of its
 * own, whose KV cache still holds its prefix, once the slot count is known (from
 * {@link Builder#llamaCppSlots} or {@code GET /props}, asked by {@link #contextWindow}).
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
  /** The most tools Chat Completions takes in one request; more are refused by OpenAI. */
  public static final int MAX_TOOLS = 128;

  private final HttpLlmClientBuilder.Frozen http;
  private final boolean reasoningOnToolTurns;
  private final String maxTokensField;
  private final boolean promptCacheKey;
  private final LlamaCppSlots slots;
  private volatile LlamaCppSlots.Props props;
  private final ModelLists.Listed listedWindows = new ModelLists.Listed();

  private OpenAiClient(Builder b) {
    this.http = b.freeze("/chat/completions", "OpenAI-compatible server");
    this.reasoningOnToolTurns = b.reasoningOnToolTurns;
    this.maxTokensField = b.maxTokensField;
    this.promptCacheKey = b.promptCacheKey != null ? b.promptCacheKey
        : isOpenAi(http.baseUrl());
    this.slots = b.llamaCpp ? new LlamaCppSlots(b.llamaCppSlots) : null;
  }

  /** Whether {@code url} is OpenAI's own API, which takes {@code prompt_cache_key}. */
  static boolean isOpenAi(URI url) {
    return url.getHost() != null && url.getHost().equalsIgnoreCase("api.openai.com");
  }

  /** A new builder, for {@link #DEFAULT_BASE_URL} unless told otherwise. */
  public static Builder builder() {
    return new Builder();
  }

  /** The base URL (without {@code /chat/completions}). */
  public URI baseUrl() {
    return http.baseUrl();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Returns at once; the request is sent on the HTTP client's threads.
   */
  /** {@value #MAX_TOOLS}: Chat Completions refuses more tools in one request. */
  @Override
  public int maxTools() {
    return MAX_TOOLS;
  }

  /**
   * {@link ToolLoading#IN_RESULT}: Chat Completions (and llama.cpp's and vLLM's chat templates)
   * put the tools before the messages, so a tool appended there would have every message
   * processed again; and llama.cpp lets the model call only the tools listed.
   */
  @Override
  public ToolLoading toolLoading() {
    return ToolLoading.IN_RESULT;
  }

  @Override
  public LlmCall stream(LlmRequest request, LlmListener listener) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(listener, "listener");
    byte[] body = RequestBodies.bytes(RequestBodies.openAi(request, reasoningOnToolTurns,
        maxTokensField, extraFields(request)));
    int maxEventChars = http.maxEventChars();
    return http.engine().start(http.post(body, "text/event-stream"), (events, info) -> {
      String type = info.headers().firstValue("Content-Type").orElse("")
          .toLowerCase(Locale.ROOT);
      return type.startsWith("application/json")
          ? StreamParser.openAiJson(events, HttpStreamEngine::newToolCallId, maxEventChars)
          : StreamParser.openAi(events, HttpStreamEngine::newToolCallId, maxEventChars);
    }, listener);
  }

  /** The cache fields of {@code request}, then the builder's params (which win). */
  private Map<String, JsonNode> extraFields(LlmRequest request) {
    Map<String, JsonNode> extra = new LinkedHashMap<>();
    String key = request.cacheKey();
    if (promptCacheKey && key != null) {
      extra.put("prompt_cache_key", TextNode.valueOf(key));
    }
    if (slots != null) {
      extra.put("cache_prompt", BooleanNode.TRUE);
      int slot = key == null ? -1 : slots.slotFor(key);
      if (slot >= 0) {
        extra.put("id_slot", IntNode.valueOf(slot));
      }
    }
    extra.putAll(http.params());
    return extra;
  }

  /**
   * {@inheritDoc}
   *
   * <p>For a llama.cpp server ({@link Builder#llamaCpp}), a slot's context from
   * {@code GET /props} ({@code default_generation_settings.n_ctx}), asked until it answers
   * (10 s at most each time), which also tells the slot count. Otherwise what the server's
   * {@code GET /models} gives the model (vLLM's {@code max_model_len}, OpenRouter's
   * {@code context_length}; asked once per model once it answers), else the published window
   * of a well-known model ({@link ContextWindows}).
   */
  @Override
  public OptionalInt contextWindow(String model) {
    if (slots != null) {
      return llamaCppWindow();
    }
    OptionalInt listed = listedWindows.window(http.engine().httpClient(), http.baseUrl(),
        http.bearerHeaders(), model);
    return listed.isPresent() ? listed : ContextWindows.known(model);
  }

  private OptionalInt llamaCppWindow() {
    LlamaCppSlots.Props known = props;
    if (known == null) {
      known = LlamaCppSlots.fetch(http.engine().httpClient(), http.baseUrl(),
          http.bearerHeaders(), Duration.ofSeconds(10));
      if (known == null) {
        return OptionalInt.empty();
      }
      props = known;
      slots.learn(known.totalSlots());
    }
    return LlamaCppSlots.window(known);
  }

  /** Never shows the API key. */
  @Override
  public String toString() {
    return http.describe("OpenAiClient");
  }

  /**
   * Builds an {@link OpenAiClient}. Defaults: {@link #DEFAULT_BASE_URL}, no API key, connect
   * timeout 10 s, first-byte timeout 2 min, idle timeout 2 min, {@link RetryPolicy#DEFAULT},
   * reasoning sent back on tool turns, {@code prompt_cache_key} for {@code api.openai.com}
   * only, not llama.cpp. Not thread-safe.
   */
  public static final class Builder extends HttpLlmClientBuilder<Builder> {
    private boolean reasoningOnToolTurns = true;
    private String maxTokensField = "max_tokens";
    private Boolean promptCacheKey;
    private boolean llamaCpp;
    private int llamaCppSlots;

    private Builder() {
      super(DEFAULT_BASE_URL, Duration.ofMinutes(2));
    }

    @Override
    Builder self() {
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
     * The field that carries a request's {@link dev.gadget.core.model.ModelParams#maxTokens()}
     * (default {@code max_tokens}, which OpenAI-compatible servers take; OpenAI's reasoning
     * models want {@code max_completion_tokens}).
     */
    public Builder maxTokensField(String field) {
      Objects.requireNonNull(field, "field");
      if (field.isBlank()) {
        throw new IllegalArgumentException("maxTokensField is blank");
      }
      this.maxTokensField = field;
      return this;
    }

    /**
     * Whether a request's {@link LlmRequest#cacheKey()} is sent as {@code prompt_cache_key}.
     * Default: only when the base URL's host is {@code api.openai.com}; other servers may refuse
     * a field they do not know (vLLM and LiteLLM can be set to), so turn it on for one that takes
     * it.
     */
    public Builder promptCacheKey(boolean send) {
      this.promptCacheKey = send;
      return this;
    }

    /**
     * Whether the server is llama.cpp's {@code llama-server} (default false): requests then carry
     * {@code cache_prompt: true} and, once the slot count is known, the chat's own
     * {@code id_slot}; {@link OpenAiClient#contextWindow} asks {@code GET /props}.
     */
    public Builder llamaCpp(boolean llamaCpp) {
      this.llamaCpp = llamaCpp;
      return this;
    }

    /**
     * The llama.cpp server's slot count (its {@code --parallel}), when you know it; otherwise
     * it is read from {@code GET /props}. Implies {@link #llamaCpp}.
     */
    public Builder llamaCppSlots(int slots) {
      if (slots < 1) {
        throw new IllegalArgumentException("a llama.cpp server has at least one slot");
      }
      this.llamaCpp = true;
      this.llamaCppSlots = slots;
      return this;
    }

    /** The client. */
    public OpenAiClient build() {
      return new OpenAiClient(this);
    }
  }
}
