package dev.gadget.core.store.internal;

import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.spi.StoreException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The providers and usage totals part of {@link IndexedState}: users' providers by id and by
 * user, and each user's totals ordered by provider and model.
 */
public final class ProviderState {
  private final Map<String, ModelProvider> providers = new HashMap<>();
  private final Map<String, NavigableMap<String, ModelProvider>> providersByUser = new HashMap<>();
  private final Map<String, NavigableMap<String, UsageTotal>> usageByUser = new HashMap<>();

  public Optional<ModelProvider> findProvider(String id) {
    return Optional.ofNullable(id == null ? null : providers.get(id));
  }

  public List<ModelProvider> listProviders(String userId) {
    NavigableMap<String, ModelProvider> mine = providersByUser.get(userId);
    return mine == null ? List.of() : List.copyOf(mine.values());
  }

  public List<UsageTotal> listUsage(String userId) {
    NavigableMap<String, UsageTotal> mine = usageByUser.get(userId);
    return mine == null ? List.of() : List.copyOf(mine.values());
  }

  Change checkSave(ModelProvider provider, boolean userExists) {
    Objects.requireNonNull(provider, "provider");
    if (!userExists) {
      throw new StoreException(StoreException.Reason.NOT_FOUND,
          "user " + provider.userId() + " not found");
    }
    return new Change.SaveProvider(provider);
  }

  Change checkDelete(String id) {
    return id != null && providers.containsKey(id) ? new Change.DeleteProvider(id) : null;
  }

  void put(ModelProvider p) {
    remove(p.id());
    providers.put(p.id(), p);
    providersByUser.computeIfAbsent(p.userId(), k -> new TreeMap<>()).put(p.id(), p);
  }

  void remove(String id) {
    ModelProvider old = providers.remove(id);
    if (old != null) {
      NavigableMap<String, ModelProvider> mine = providersByUser.get(old.userId());
      mine.remove(id);
      if (mine.isEmpty()) {
        providersByUser.remove(old.userId());
      }
    }
  }

  void addUsage(UsageTotal delta) {
    usageByUser.computeIfAbsent(delta.userId(), k -> new TreeMap<>())
        .merge(delta.providerId() + '\n' + delta.modelId(), delta, UsageTotal::plus);
  }

  /** The changes that recreate this part (usage totals as one addition each). */
  void snapshotInto(List<Change> out) {
    providers.values().forEach(p -> out.add(new Change.SaveProvider(p)));
    usageByUser.values().forEach(m -> m.values().forEach(u -> out.add(new Change.AddUsage(u))));
  }

  int size() {
    return providers.size();
  }
}
