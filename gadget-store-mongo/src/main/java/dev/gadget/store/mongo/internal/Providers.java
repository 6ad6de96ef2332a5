package dev.gadget.store.mongo.internal;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Sorts.ascending;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.spi.ProviderStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.bson.Document;
import org.bson.conversions.Bson;

/**
 * The {@code providers} and {@code usageTotals} collections, and a session's chosen model and
 * sampling (on its {@code chatSessions} document). A usage total is one document per user, provider and
 * model, added to with one {@code $inc} upsert per turn.
 */
public final class Providers implements ProviderStore {
  private final Operations ops;
  private final MongoCollection<Document> providers;
  private final MongoCollection<Document> usage;
  private final MongoCollection<Document> users;
  private final MongoCollection<Document> sessions;

  public Providers(Operations ops) {
    this.ops = ops;
    this.providers = ops.collection(Schema.PROVIDERS);
    this.usage = ops.collection(Schema.USAGE);
    this.users = ops.collection(Schema.USERS);
    this.sessions = ops.collection(Schema.SESSIONS);
  }

  @Override
  public void saveProvider(ModelProvider provider) {
    Objects.requireNonNull(provider, "provider");
    ops.run("saveProvider", "provider " + provider.id(), () -> {
      if (!Operations.exists(users, provider.userId())) {
        throw Operations.notFound("user " + provider.userId());
      }
      providers.replaceOne(eq("_id", provider.id()), ProviderCodecs.provider(provider),
          new ReplaceOptions().upsert(true));
    });
  }

  @Override
  public Optional<ModelProvider> findProvider(String id) {
    return ops.findOne("findProvider", providers, eq("_id", id), ProviderCodecs::provider);
  }

  @Override
  public List<ModelProvider> listProviders(String userId) {
    return ops.findAll("listProviders", providers, eq("userId", userId), ascending("_id"),
        ProviderCodecs::provider);
  }

  @Override
  public boolean deleteProvider(String id) {
    return ops.call("deleteProvider", "provider " + id,
        () -> providers.deleteOne(eq("_id", id)).getDeletedCount() == 1);
  }

  @Override
  public void setSessionModel(String sessionId, String providerId, String modelId) {
    Bson update = Updates.combine(
        providerId == null ? Updates.unset("providerId") : Updates.set("providerId", providerId),
        modelId == null ? Updates.unset("modelId") : Updates.set("modelId", modelId));
    ops.updateExisting("setSessionModel", sessions, "chat session " + sessionId, sessionId,
        update);
  }

  @Override
  public void setSessionSampling(String sessionId, Sampling sampling) {
    Document d = ProviderCodecs.sampling(sampling);
    ops.updateExisting("setSessionSampling", sessions, "chat session " + sessionId, sessionId,
        d == null ? Updates.unset("sampling") : Updates.set("sampling", d));
  }

  @Override
  public void setSessionToolDeferral(String sessionId, String toolDeferral) {
    ops.updateExisting("setSessionToolDeferral", sessions, "chat session " + sessionId,
        sessionId, toolDeferral == null ? Updates.unset("toolDeferral")
            : Updates.set("toolDeferral", toolDeferral));
  }

  @Override
  public void addUsage(UsageTotal u) {
    Objects.requireNonNull(u, "turnUsage");
    String id = u.userId() + "\n" + u.providerId() + "\n" + u.modelId();
    long[] values = ProviderCodecs.counters(u);
    List<Bson> updates = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      updates.add(Updates.inc(ProviderCodecs.COUNTERS[i], values[i]));
    }
    updates.add(Updates.setOnInsert("userId", u.userId()));
    updates.add(Updates.setOnInsert("providerId", u.providerId()));
    updates.add(Updates.setOnInsert("modelId", u.modelId()));
    ops.run("addUsage", "usage total " + id, () -> usage.updateOne(eq("_id", id),
        Updates.combine(updates), new UpdateOptions().upsert(true)));
  }

  @Override
  public List<UsageTotal> listUsage(String userId) {
    return ops.findAll("listUsage", usage, eq("userId", userId),
        ascending("providerId", "modelId"), ProviderCodecs::usage);
  }
}
