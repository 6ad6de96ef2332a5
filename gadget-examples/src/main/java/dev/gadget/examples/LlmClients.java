package dev.gadget.examples;

import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.OllamaClient;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.store.Tokens;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The drone's LLM clients, one per (sdk, base URL, API key), made from a work order's provider:
 * {@code ollama} is {@link OllamaClient}, {@code openai} is {@link OpenAiClient} (any
 * OpenAI-compatible endpoint), {@code scripted} is the demo's {@link DemoScript}. Thread-safe.
 */
final class LlmClients implements Function<ProviderConfig, LlmClient> {
  static final String OLLAMA = "ollama";
  static final String OPENAI = "openai";
  static final String SCRIPTED = "scripted";

  private final Map<String, LlmClient> clients = new ConcurrentHashMap<>();
  private final Function<ProviderConfig, LlmClient> scripted;
  private final String ownApiKey;

  LlmClients() {
    this(p -> DemoScript.client());
  }

  /**
   * With the drone's own API key, used when a work order carries none (the server's operator
   * may keep the key off the server and give it to each drone instead). Never logged.
   */
  LlmClients(String ownApiKey) {
    this(p -> DemoScript.client(), ownApiKey);
  }

  /** With another client for the {@code scripted} sdk (tests). */
  LlmClients(Function<ProviderConfig, LlmClient> scripted) {
    this(scripted, null);
  }

  private LlmClients(Function<ProviderConfig, LlmClient> scripted, String ownApiKey) {
    this.ownApiKey = ownApiKey;
    this.scripted = scripted;
  }

  @Override
  public LlmClient apply(ProviderConfig given) {
    ProviderConfig p = given.apiKey() == null && ownApiKey != null
        ? new ProviderConfig(given.sdk(), given.baseUrl(), ownApiKey, given.modelId(),
            given.params())
        : given;
    // The key is part of the cache key only as a hash; it is never logged.
    String key = p.sdk() + "\n" + p.baseUrl() + "\n"
        + (p.apiKey() == null ? "" : Tokens.hash(p.apiKey()));
    return clients.computeIfAbsent(key, k -> create(p));
  }

  private LlmClient create(ProviderConfig p) {
    switch (p.sdk()) {
      case OLLAMA: {
        OllamaClient.Builder b = OllamaClient.builder().baseUrl(p.baseUrl());
        if (p.apiKey() != null) {
          b.apiKey(p.apiKey());
        }
        return b.build();
      }
      case OPENAI: {
        OpenAiClient.Builder b = OpenAiClient.builder().baseUrl(p.baseUrl());
        if (p.apiKey() != null) {
          b.apiKey(p.apiKey());
        }
        return b.build();
      }
      case SCRIPTED:
        return scripted.apply(p);
      default:
        throw new IllegalArgumentException("this drone has no client for the LLM sdk '"
            + p.sdk() + "' (it knows ollama, openai and scripted)");
    }
  }
}
