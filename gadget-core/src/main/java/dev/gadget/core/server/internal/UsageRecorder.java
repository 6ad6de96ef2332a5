package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ModelPrice;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.server.ServerListener;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.StoreException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds each ended turn's usage to the totals of its user, provider and model (one store write
 * per turn, never one per token), costed at the model's price when the provider has one, then
 * tells the application's listener.
 */
public final class UsageRecorder implements ServerListener {
  private static final Logger log = LoggerFactory.getLogger(UsageRecorder.class);

  private final ChatStore store;
  private final ServerListener next;

  public UsageRecorder(ChatStore store, ServerListener next) {
    this.store = store;
    this.next = next;
  }

  @Override
  public void onConnectionOpened(ConnectionKind kind) {
    next.onConnectionOpened(kind);
  }

  @Override
  public void onConnectionClosed(ConnectionKind kind) {
    next.onConnectionClosed(kind);
  }

  @Override
  public void onTurnStarted(ChatTurn turn) {
    next.onTurnStarted(turn);
  }

  @Override
  public void onTurnEnded(ChatTurn turn, TurnStatus status, TurnStats stats, Duration duration) {
    TurnModel model = turn.model();
    if (model != null) {
      try {
        ModelProvider provider = providerOf(model);
        ModelPrice price = provider == null ? null : provider.priceOf(model.modelId());
        store.providers().addUsage(UsageTotal.ofTurn(turn.userId(), model, stats,
            status == TurnStatus.ERROR, price,
            ModelPrice.CacheRatios.of(provider == null ? null : provider.kind(),
                model.modelId())));
      } catch (StoreException e) {
        log.warn("could not add the usage of turn {}: {}", turn.id(), e.getMessage());
      }
    }
    next.onTurnEnded(turn, status, stats, duration);
  }

  /** The model's provider now; the server's default has no prices, so none. */
  private ModelProvider providerOf(TurnModel model) {
    if (TurnModel.DEFAULT_PROVIDER.equals(model.providerId())) {
      return null;
    }
    return store.providers().findProvider(model.providerId()).orElse(null);
  }
}
