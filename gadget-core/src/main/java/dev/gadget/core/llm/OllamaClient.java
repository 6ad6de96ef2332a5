package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.internal.HttpStreamEngine;
import dev.gadget.core.llm.internal.HttpSupport;
import dev.gadget.core.llm.internal.ModelInfo;
import dev.gadget.core.llm.internal.RequestBodies;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.llm.internal.StreamParser;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Objects;

/**
 * An {@link LlmClient} for Ollama's native chat API: {@code POST /api/chat} with
 * {@code stream: true}, read as newline-delimited JSON.
 *
 * <p>It sends the whole conversation (assistant {@code thinking} and tool calls, tool results
 * with {@code tool_name}), the tools as JSON schema, {@link LlmRequest#thinkLevel()} (such as
 * {@code "high"}, which gpt-oss requires) or else {@link LlmRequest#think()} as {@code think},
 * and temperature, top_p, top_k and the output limit as {@code num_predict} (plus any
 * {@link Builder#option options}) in {@code options}. It streams {@code message.thinking} and {@code message.content} as they
 * arrive and hands on tool calls as soon as a chunk carries them; a {@code done_reason} of
 * {@code "stop"} after tool calls becomes {@link FinishReason#TOOL_CALLS}. Usage carries
 * {@code prompt_eval_count}, {@code eval_count} and the four durations (any may be missing).
 * Ollama sends no tool-call ids, so ids are generated ({@code call_...}).
 *
 * <p>Ollama reuses a loaded model's KV cache for the prefix a request shares with the last one,
 * as long as the model stays loaded: {@link Builder#keepAlive} sends {@code keep_alive} so that it
 * does between a chat's turns (the server's own setting, five minutes by default, otherwise).
 *
 * <pre>{@code
 * LlmClient llm = OllamaClient.builder()
 *     .baseUrl("http://localhost:11434")
 *     .option("num_ctx", 32768)
 *     .build();
 * }</pre>
 *
 * <p><b>Threading.</b> Immutable and thread-safe: one instance serves any number of concurrent
 * calls. A call holds no thread while it waits: the body is read by a
 * {@link java.util.concurrent.Flow.Subscriber} on the HTTP client's executor and timeouts run
 * on one shared timer thread. Listener callbacks run on those threads, one at a time per call;
 * a slow listener slows only its own call's reading. See {@link LlmClient} for the contract
 * and {@link RetryPolicy} for retries.
 */
public final class OllamaClient implements LlmClient {
  /** Where Ollama listens by default. */
  public static final URI DEFAULT_BASE_URL = URI.create("http://localhost:11434");

  /**
   * The most a window {@link #contextWindow discovered} from the model is taken to be: Ollama
   * holds the whole window in memory, so a bigger one must be asked for on purpose ({@code num_ctx}
   * or the request's {@code contextWindow}).
   */
  public static final int MAX_DISCOVERED_WINDOW = 32_768;

  private final HttpLlmClientBuilder.Frozen http;
  private final Map<String, JsonNode> options;
  private final Map<String, JsonNode> extra;
  private final Map<String, OptionalInt> windows = new ConcurrentHashMap<>();

  private OllamaClient(Builder b) {
    this.http = b.freeze("/api/chat", "Ollama");
    this.options = Map.copyOf(b.options);
    Map<String, JsonNode> top = new LinkedHashMap<>();
    if (b.keepAlive != null) {
      top.put("keep_alive", b.keepAlive);
    }
    top.putAll(http.params());
    this.extra = top;
  }

  /** A new builder, for {@link #DEFAULT_BASE_URL} unless told otherwise. */
  public static Builder builder() {
    return new Builder();
  }

  /** The base URL (without {@code /api/chat}). */
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
    byte[] body = RequestBodies.bytes(RequestBodies.ollama(request, options, extra));
    return http.engine().start(http.post(body, "application/x-ndjson"),
        (events, info) -> StreamParser.ollama(events, HttpStreamEngine::newToolCallId,
            http.maxEventChars()),
        listener);
  }

  /**
   * {@link ToolLoading#IN_RESULT}: the model's chat template puts the tools before the
   * messages, so a tool appended there would have every message processed again (Ollama reuses
   * only the longest prefix of its last prompt).
   */
  @Override
  public ToolLoading toolLoading() {
    return ToolLoading.IN_RESULT;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The {@code num_ctx} {@link Builder#option option} when it is set (Ollama truncates the
   * prompt to it); otherwise the model's {@code context_length} from {@code POST /api/show},
   * asked once per model (10 s at most), up to {@link #MAX_DISCOVERED_WINDOW}. A request whose {@link ModelParams#contextWindow()} is
   * set sends it as {@code num_ctx}, so Ollama then really uses that window.
   */
  @Override
  public OptionalInt contextWindow(String model) {
    JsonNode numCtx = options.get("num_ctx");
    if (numCtx != null && numCtx.canConvertToInt() && numCtx.asInt() > 0) {
      return OptionalInt.of(numCtx.asInt());
    }
    OptionalInt known = windows.get(model);
    if (known != null) {
      return known;
    }
    Map<String, String> headers = new LinkedHashMap<>(http.headers());
    if (http.apiKey() != null) {
      headers.put("Authorization", "Bearer " + http.apiKey());
    }
    OptionalInt found = ModelInfo.ollamaContextLength(http.engine().httpClient(),
        http.baseUrl(), model, headers, Duration.ofSeconds(10));
    if (found.isPresent()) {
      found = OptionalInt.of(Math.min(MAX_DISCOVERED_WINDOW, found.getAsInt()));
      if (windows.size() < 1000) {
        windows.put(model, found);
      }
    }
    return found;
  }

  @Override
  public String toString() {
    return "OllamaClient{" + http.baseUrl() + "}";
  }

  /**
   * Builds an {@link OllamaClient}. Defaults: {@link #DEFAULT_BASE_URL}, connect timeout 10 s,
   * first-byte timeout 5 min (Ollama sends nothing while it loads a model and reads the
   * prompt), idle timeout 2 min, {@link RetryPolicy#DEFAULT}. Not thread-safe.
   */
  public static final class Builder extends HttpLlmClientBuilder<Builder> {
    private final Map<String, JsonNode> options = new LinkedHashMap<>();
    private JsonNode keepAlive;

    private Builder() {
      super(DEFAULT_BASE_URL, Duration.ofMinutes(5));
    }

    @Override
    Builder self() {
      return this;
    }

    /**
     * A model option sent in {@code options} with every request, such as {@code num_ctx}
     * (Ollama's default context is small) or {@code seed}. Overrides the request's own
     * temperature, top_p or top_k when it has the same name.
     */
    public Builder option(String name, Object value) {
      options.put(Objects.requireNonNull(name, "name"), HttpSupport.toJson(value));
      return this;
    }

    /**
     * How long Ollama keeps the model (and its prompt cache) loaded after a request, sent as
     * {@code keep_alive} (such as {@code "1800s"}); a negative duration keeps it loaded until
     * the server stops ({@code -1}). Default: not sent, the server's own setting
     * ({@code OLLAMA_KEEP_ALIVE}, five minutes unless set). A {@link #param} of the same name wins.
     */
    public Builder keepAlive(Duration keepAlive) {
      Objects.requireNonNull(keepAlive, "keepAlive");
      this.keepAlive = keepAlive.isNegative() ? HttpSupport.toJson(-1)
          : HttpSupport.toJson(keepAlive.toSeconds() + "s");
      return this;
    }

    /** The client. */
    public OllamaClient build() {
      return new OllamaClient(this);
    }
  }
}
