package dev.gadget.examples;

import dev.gadget.core.llm.AnthropicClient;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.OllamaClient;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.llm.OpenAiResponsesClient;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.store.Tokens;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The drone's LLM clients, one per (sdk, base URL, API key), made from a work order's provider:
 * {@code ollama} is {@link OllamaClient}, {@code openai} is {@link OpenAiClient} (any
 * OpenAI-compatible endpoint) except for {@code api.openai.com}'s models that reason (the
 * o-series, {@code gpt-5*}: {@link OpenAiResponsesClient#isReasoningModel}), which get
 * {@code openai-responses}, {@link OpenAiResponsesClient} (OpenAI's Responses API, whose
 * reasoning goes on across tool calls), {@code llamacpp} is {@link OpenAiClient} for llama.cpp's
 * server (each chat keeps its slot and prompt cache), {@code anthropic} is
 * {@link AnthropicClient} (with thinking on, {@value #ANTHROPIC_THINKING_BUDGET} tokens),
 * {@code scripted} is the demo's {@link DemoScript}. With {@link #withContextWindow}, every
 * client says that context window. Thread-safe.
 */
final class LlmClients implements Function<ProviderConfig, LlmClient> {
  static final String OLLAMA = "ollama";
  static final String OPENAI = "openai";
  static final String OPENAI_RESPONSES = "openai-responses";
  static final String LLAMACPP = "llamacpp";
  static final String ANTHROPIC = "anthropic";
  static final String SCRIPTED = "scripted";
  /** The thinking budget of the drone's Anthropic clients. */
  static final int ANTHROPIC_THINKING_BUDGET = 4096;

  private final Map<String, LlmClient> clients = new ConcurrentHashMap<>();
  private final Function<ProviderConfig, LlmClient> scripted;
  /** The drone's own API key for each sdk; {@code ""} stands for every sdk. */
  private final Map<String, String> ownApiKeys;
  /** The context window every model has ({@code --context-window}), or 0: the provider's. */
  private final int contextWindow;

  LlmClients() {
    this(p -> DemoScript.client());
  }

  /** With another client for the {@code scripted} sdk (tests). */
  LlmClients(Function<ProviderConfig, LlmClient> scripted) {
    this(scripted, Map.of());
  }

  private LlmClients(Function<ProviderConfig, LlmClient> scripted, Map<String, String> keys) {
    this(scripted, keys, 0);
  }

  private LlmClients(Function<ProviderConfig, LlmClient> scripted, Map<String, String> keys,
      int contextWindow) {
    this.ownApiKeys = Map.copyOf(keys);
    this.scripted = scripted;
    this.contextWindow = contextWindow;
  }

  /**
   * These clients, with every model's context window {@code tokens} (the drone's
   * {@code --context-window}) instead of what its provider says.
   */
  LlmClients withContextWindow(int tokens) {
    return new LlmClients(scripted, ownApiKeys, tokens);
  }

  /**
   * With the drone's own API keys from its environment, each sdk's from its own variables
   * ({@link Providers#apiKey}), so that a key is only ever sent to the provider it is for.
   */
  static LlmClients withOwnKeys(Function<String, String> env) {
    Map<String, String> keys = new HashMap<>();
    for (String sdk : new String[] {OLLAMA, OPENAI, OPENAI_RESPONSES, LLAMACPP, ANTHROPIC}) {
      String key = Providers.apiKey(sdk, env);
      if (key != null) {
        keys.put(sdk, key);
      }
    }
    return new LlmClients(p -> DemoScript.client(), keys);
  }

  @Override
  public LlmClient apply(ProviderConfig given) {
    String own = ownApiKeys.getOrDefault(given.sdk(), ownApiKeys.get(""));
    ProviderConfig p = given.apiKey() == null && own != null
        ? new ProviderConfig(given.sdk(), given.baseUrl(), own, given.modelId(), given.params())
        : given;
    // The key is part of the cache key only as a hash; it is never logged.
    String sdk = sdkFor(p);
    String key = sdk + "\n" + p.baseUrl() + "\n"
        + (p.apiKey() == null ? "" : Tokens.hash(p.apiKey()));
    LlmClient client = clients.computeIfAbsent(key, k -> create(sdk, p));
    return contextWindow > 0 ? new FixedWindowClient(client, contextWindow) : client;
  }

  /**
   * The client family that serves {@code p}: its sdk, except that OpenAI's own models that
   * reason go to the Responses API, the one that keeps their reasoning across tool calls.
   */
  static String sdkFor(ProviderConfig p) {
    if (OPENAI.equals(p.sdk()) && OpenAiResponsesClient.isReasoningModel(p.modelId())) {
      try {
        if ("api.openai.com".equalsIgnoreCase(java.net.URI.create(p.baseUrl()).getHost())) {
          return OPENAI_RESPONSES;
        }
      } catch (IllegalArgumentException notAUrl) {
        return p.sdk(); // the client's builder says what is wrong with it
      }
    }
    return p.sdk();
  }

  private LlmClient create(String sdk, ProviderConfig p) {
    switch (sdk) {
      case OLLAMA: {
        OllamaClient.Builder b = OllamaClient.builder().baseUrl(p.baseUrl());
        if (p.apiKey() != null) {
          b.apiKey(p.apiKey());
        }
        return b.build();
      }
      case OPENAI:
      case LLAMACPP: {
        OpenAiClient.Builder b = OpenAiClient.builder().baseUrl(p.baseUrl())
            .llamaCpp(LLAMACPP.equals(p.sdk()));
        if (p.apiKey() != null) {
          b.apiKey(p.apiKey());
        }
        return b.build();
      }
      case OPENAI_RESPONSES: {
        OpenAiResponsesClient.Builder b = OpenAiResponsesClient.builder().baseUrl(p.baseUrl());
        if (p.apiKey() != null) {
          b.apiKey(p.apiKey());
        }
        return b.build();
      }
      case ANTHROPIC: {
        AnthropicClient.Builder b = AnthropicClient.builder().baseUrl(p.baseUrl())
            .thinkingBudget(ANTHROPIC_THINKING_BUDGET);
        if (p.apiKey() != null) {
          b.apiKey(p.apiKey());
        }
        return b.build();
      }
      case SCRIPTED:
        return scripted.apply(p);
      default:
        throw new IllegalArgumentException("this drone has no client for the LLM sdk '"
            + p.sdk() + "' (it knows ollama, openai, openai-responses, llamacpp, anthropic and "
            + "scripted)");
    }
  }
}
