package dev.gadget.core.spi;

import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.UsageTotal;
import java.util.List;
import java.util.Optional;

/**
 * Where a {@link ChatStore} keeps users' LLM providers, each session's chosen model and the usage
 * totals ({@link ChatStore#providers()}). Same contract as {@link ChatStore}: thread-safe, each
 * write one atomic write, failures as {@link StoreException}. API keys arrive sealed
 * ({@link ModelProvider#sealedApiKey()}); a store never sees one in clear.
 */
public interface ProviderStore {

  /** Adds or replaces (by id) a provider. {@link StoreException.Reason#NOT_FOUND} without its user. */
  void saveProvider(ModelProvider provider);

  /** The provider with {@code id}. */
  Optional<ModelProvider> findProvider(String id);

  /** The user's providers, oldest first (by id). */
  List<ModelProvider> listProviders(String userId);

  /** Removes a provider; returns whether it existed. Sessions that chose it keep its id. */
  boolean deleteProvider(String id);

  /**
   * Sets the provider and model a chat session's next turns use ({@code null}s: the server's
   * default). {@link StoreException.Reason#NOT_FOUND} if the session does not exist.
   */
  void setSessionModel(String sessionId, String providerId, String modelId);

  /**
   * Sets how a chat session's next turns sample ({@link ChatSession#sampling()}; {@code null} or
   * {@link Sampling#NONE}: its provider's), replacing what it set before. Its provider and model
   * stay. {@link StoreException.Reason#NOT_FOUND} if the session does not exist.
   */
  void setSessionSampling(String sessionId, Sampling sampling);

  /**
   * Sets when a chat session's next turns defer tools ({@link ChatSession#toolDeferral()}, as
   * the server checked it; {@code null}: as the drone is set), replacing what it set before.
   * {@link StoreException.Reason#NOT_FOUND} if the session does not exist.
   */
  void setSessionToolDeferral(String sessionId, String toolDeferral);

  /**
   * Adds one turn's usage to the total of its user, provider and model, in one write (created
   * at zero the first time).
   */
  void addUsage(UsageTotal turnUsage);

  /** The user's totals, one per provider and model, ordered by provider id then model id. */
  List<UsageTotal> listUsage(String userId);
}
