package dev.gadget.micrometer;

import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.LlmUsage;
import dev.gadget.core.llm.ThinkingBlock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * An {@link LlmClient} that records each call's duration, tokens and failure, then delegates; what
 * the client says of its models (context window, most tools a request) is the wrapped one's.
 */
final class MeteredLlmClient implements LlmClient {
  private final MeterRegistry registry;
  private final LlmClient delegate;
  private final String provider;

  MeteredLlmClient(MeterRegistry registry, LlmClient delegate, String provider) {
    this.registry = registry;
    this.delegate = delegate;
    this.provider = provider;
  }

  @Override
  public LlmCall stream(LlmRequest request, LlmListener listener) {
    Tags tags = Tags.of(GadgetMetrics.OPERATION_NAME, "chat", GadgetMetrics.PROVIDER_NAME,
        provider, GadgetMetrics.REQUEST_MODEL, request.model());
    long start = registry.config().clock().monotonicTime();
    return delegate.stream(request, new LlmListener() {
      @Override
      public void onThinking(String text) {
        listener.onThinking(text);
      }

      @Override
      public void onSignedThinking(ThinkingBlock block) {
        listener.onSignedThinking(block);
      }

      @Override
      public void onText(String text) {
        listener.onText(text);
      }

      @Override
      public void onToolCall(LlmToolCall call) {
        listener.onToolCall(call);
      }

      @Override
      public void onComplete(LlmCompletion completion) {
        record(tags, start, completion.usage(), null);
        listener.onComplete(completion);
      }

      @Override
      public void onError(LlmException error, LlmCompletion partial) {
        record(tags, start, partial == null ? null : partial.usage(), error);
        listener.onError(error, partial);
      }
    });
  }

  @Override
  public OptionalInt contextWindow(String model) {
    return delegate.contextWindow(model);
  }

  @Override
  public int maxTools() {
    return delegate.maxTools();
  }

  @Override
  public dev.gadget.core.llm.ToolLoading toolLoading() {
    return delegate.toolLoading();
  }

  private void record(Tags tags, long start, LlmUsage usage, LlmException error) {
    String errorType = error == null ? "none"
        : (error.kind() == null ? "other" : error.kind().name().toLowerCase(Locale.ROOT));
    Timer.builder(GadgetMetrics.OPERATION_DURATION)
        .description("How long a model call took, from the request to its last byte")
        .tags(tags).tag(GadgetMetrics.ERROR_TYPE, errorType)
        .register(registry)
        .record(registry.config().clock().monotonicTime() - start, TimeUnit.NANOSECONDS);
    if (error != null) {
      Counter.builder(GadgetMetrics.LLM_ERRORS)
          .description("Model calls that failed, by why")
          .tags(tags).tag(GadgetMetrics.ERROR_TYPE, errorType)
          .register(registry).increment();
    }
    if (usage != null && usage.reported()) {
      tokens(tags, "input").record(usage.promptTokens());
      tokens(tags, "output").record(usage.completionTokens());
      cacheTokens(tags, "cache_read").record(usage.cacheReadTokens());
      cacheTokens(tags, "cache_creation").record(usage.cacheWriteTokens());
    }
  }

  /**
   * The prompt cache's share of the input, apart from {@value GadgetMetrics#TOKEN_USAGE} so that
   * its input and output still add up to the tokens billed; the types are named after the
   * conventions' {@code gen_ai.usage.cache_read.input_tokens} and
   * {@code gen_ai.usage.cache_creation.input_tokens}.
   */
  private DistributionSummary cacheTokens(Tags tags, String type) {
    return DistributionSummary.builder(GadgetMetrics.CACHE_TOKEN_USAGE)
        .description("Input tokens of a model call read from or written to the prompt cache")
        .baseUnit("tokens")
        .tags(tags).tag(GadgetMetrics.TOKEN_TYPE, type)
        .register(registry);
  }

  private DistributionSummary tokens(Tags tags, String type) {
    return DistributionSummary.builder(GadgetMetrics.TOKEN_USAGE)
        .description("Tokens a model call used, by type")
        .baseUnit("tokens")
        .tags(tags).tag(GadgetMetrics.TOKEN_TYPE, type)
        .register(registry);
  }
}
