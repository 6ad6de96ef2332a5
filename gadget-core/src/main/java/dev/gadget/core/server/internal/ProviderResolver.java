package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.server.SecretKeys;
import dev.gadget.core.spi.ProviderStore;

/**
 * Which LLM a session's next turn runs on: the provider and model the session chose, its API key
 * opened for this one work order only, or the server operator's default. A session reaches only
 * its own user's providers.
 */
final class ProviderResolver {
  static final String DEFAULT_NAME = "Server default";

  /** A work order's provider and what the turn records of it. */
  record Resolved(ProviderConfig config, TurnModel model) {}

  private final ServerSettings settings;

  ProviderResolver(ServerSettings settings) {
    this.settings = settings;
  }

  Resolved resolve(ChatSession session) {
    String providerId = session.providerId();
    if (providerId == null || TurnModel.DEFAULT_PROVIDER.equals(providerId)) {
      ProviderConfig base = settings.providers().apply(session);
      ProviderConfig config = session.modelId() == null ? base : new ProviderConfig(base.sdk(),
          base.baseUrl(), base.apiKey(), session.modelId(), base.params());
      return new Resolved(config,
          new TurnModel(TurnModel.DEFAULT_PROVIDER, DEFAULT_NAME, config.modelId()));
    }
    ModelProvider p = owned(session.userId(), providerId);
    if (session.modelId() == null) {
      throw new RequestException("pick a model of " + p.name() + " for this chat first");
    }
    ProviderConfig config = new ProviderConfig(p.kind(), p.baseUrl(), apiKey(p),
        session.modelId(), null);
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
