package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.server.SecretKeys;
import dev.gadget.core.spi.ProviderStore;

/**
 * Which LLM a session's next turn runs on: the provider and model the session chose, its API key
 * opened for this one work order only, or the server operator's default; and how it samples. A
 * session reaches only its own user's providers.
 */
final class ProviderResolver {
  static final String DEFAULT_NAME = "Server default";

  /** A work order's provider and what the turn records of it. */
  record Resolved(ProviderConfig config, TurnModel model) {}

  private final ServerSettings settings;

  ProviderResolver(ServerSettings settings) {
    this.settings = settings;
  }

  /**
   * The session's provider and model, with its sampling resolved value by value: the chat's,
   * else its provider's, else the server operator's parameters, else none (the model's own).
   */
  Resolved resolve(ChatSession session) {
    String providerId = session.providerId();
    Sampling chat = Sampling.orNone(session.sampling());
    ProviderConfig base = settings.providers().apply(session);
    if (providerId == null || TurnModel.DEFAULT_PROVIDER.equals(providerId)) {
      ProviderConfig config = new ProviderConfig(base.sdk(), base.baseUrl(), base.apiKey(),
          session.modelId() == null ? base.modelId() : session.modelId(),
          chat.applyTo(base.params()));
      return new Resolved(config,
          new TurnModel(TurnModel.DEFAULT_PROVIDER, DEFAULT_NAME, config.modelId()));
    }
    ModelProvider p = owned(session.userId(), providerId);
    if (session.modelId() == null) {
      throw new RequestException("pick a model of " + p.name() + " for this chat first");
    }
    // the operator's sampling only: its output limit and context window are its own model's
    ModelParams operator = base.params();
    ModelParams params = chat.applyTo(Sampling.orNone(p.sampling()).applyTo(
        new ModelParams(operator.temperature(), operator.topP(), operator.topK())));
    Integer window = p.contextWindows().get(session.modelId());
    if (window != null) {
      params = params.withContextWindow(window); // the page's setting for this model
    }
    ProviderConfig config = new ProviderConfig(p.kind(), p.baseUrl(), apiKey(p),
        session.modelId(), params);
    return new Resolved(config, new TurnModel(p.id(), p.name(), session.modelId()));
  }

  /** The user's provider, or "not found" (also for anyone else's). */
  ModelProvider owned(String userId, String providerId) {
    return providers().findProvider(Requests.required(providerId, "providerId"))
        .filter(p -> p.userId().equals(userId))
        .orElseThrow(() -> new RequestException("provider not found"));
  }

  /** The provider's API key in clear, or {@code null}. */
  String apiKey(ModelProvider p) {
    if (p.sealedApiKey() == null) {
      return null;
    }
    SecretKeys keys = settings.secrets();
    if (keys == null) {
      throw new RequestException("this server has no secret key to open API keys with");
    }
    try {
      return keys.open(p.sealedApiKey(), sealContext(p.userId(), p.id()));
    } catch (IllegalArgumentException e) {
      throw new RequestException("the API key of " + p.name() + " cannot be opened ("
          + e.getMessage() + "); enter it again");
    }
  }

  /** What a provider's sealed key is bound to: its owner and the provider. */
  static String sealContext(String userId, String providerId) {
    return "provider-api-key\n" + userId + "\n" + providerId;
  }

  /** Asked at each use: a store is reached only when a request needs it. */
  private ProviderStore providers() {
    return settings.store().providers();
  }
}
