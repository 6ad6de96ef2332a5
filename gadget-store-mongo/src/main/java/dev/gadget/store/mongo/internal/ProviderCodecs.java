package dev.gadget.store.mongo.internal;

import static dev.gadget.store.mongo.internal.Fields.instant;
import static dev.gadget.store.mongo.internal.Fields.documents;
import static dev.gadget.store.mongo.internal.Fields.number;
import static dev.gadget.store.mongo.internal.Fields.optNumber;
import static dev.gadget.store.mongo.internal.Fields.optString;
import static dev.gadget.store.mongo.internal.Fields.putIfPresent;
import static dev.gadget.store.mongo.internal.Fields.putInstant;
import static dev.gadget.store.mongo.internal.Fields.string;

import dev.gadget.core.model.ModelPrice;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.UsageTotal;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/**
 * Documents for providers, usage totals, a turn's model and a provider's or a session's sampling
 * (docs/STORE-MONGO.md).
 */
public final class ProviderCodecs {
  /** The counters of a usage total, as stored. */
  static final String[] COUNTERS = {"turns", "calls", "errors", "promptTokens",
      "completionTokens", "reasoningTokens", "durationMs", "costNanos", "cacheReadTokens",
      "cacheWriteTokens"};

  private ProviderCodecs() {}

  public static Document provider(ModelProvider p) {
    Document d = new Document("_id", p.id())
        .append("userId", p.userId())
        .append("name", p.name())
        .append("kind", p.kind())
        .append("baseUrl", p.baseUrl());
    putIfPresent(d, "sealedApiKey", p.sealedApiKey());
    if (!p.prices().isEmpty()) {
      List<Document> prices = new ArrayList<>();
      for (ModelPrice price : p.prices()) {
        Document one = new Document("modelId", price.modelId())
            .append("inputPerMillion", price.inputPerMillion())
            .append("outputPerMillion", price.outputPerMillion());
        putIfPresent(one, "cacheReadPerMillion", price.cacheReadPerMillion());
        putIfPresent(one, "cacheWritePerMillion", price.cacheWritePerMillion());
        prices.add(one);
      }
      d.append("prices", prices);
    }
    putIfPresent(d, "sampling", sampling(p.sampling()));
    if (!p.contextWindows().isEmpty()) {
      // a list, not a document keyed by model: model ids hold dots ("gpt-4.1")
      List<Document> windows = new ArrayList<>();
      p.contextWindows().forEach((model, tokens) ->
          windows.add(new Document("modelId", model).append("tokens", tokens)));
      d.append("contextWindows", windows);
    }
    return putInstant(d, "createdAt", p.createdAt());
  }

  public static ModelProvider provider(Document d) {
    return Codecs.read(Schema.PROVIDERS, d, x -> new ModelProvider(string(x, "_id"),
        string(x, "userId"), string(x, "name"), string(x, "kind"), string(x, "baseUrl"),
        optString(x, "sealedApiKey"), instant(x, "createdAt"), prices(x),
        sampling(x.get("sampling")), windows(x)));
  }

  /**
   * A provider's or a session's sampling as a subdocument holding the values it sets, or
   * {@code null} when it sets none.
   */
  static Document sampling(Sampling s) {
    if (s == null || s.isEmpty()) {
      return null;
    }
    Document d = new Document();
    putIfPresent(d, "temperature", s.temperature());
    putIfPresent(d, "topP", s.topP());
    putIfPresent(d, "topK", s.topK());
    return d;
  }

  /** A sampling from its subdocument; absent (a document written before it): none. */
  static Sampling sampling(Object value) {
    if (value == null) {
      return null;
    }
    if (!(value instanceof Document d)) {
      throw new IllegalArgumentException("field 'sampling' is not a document");
    }
    Long topK = d.get("topK") == null ? null : number(d, "topK");
    if (topK != null && (topK < Integer.MIN_VALUE || topK > Integer.MAX_VALUE)) {
      throw new IllegalArgumentException("field 'topK' is not a whole number of 32 bits");
    }
    return new Sampling(optDouble(d, "temperature"), optDouble(d, "topP"),
        topK == null ? null : topK.intValue());
  }

  private static Double optDouble(Document d, String key) {
    return d.get(key) == null ? null : decimal(d, key);
  }

  private static java.util.Map<String, Integer> windows(Document d) {
    java.util.Map<String, Integer> out = new java.util.TreeMap<>();
    for (Document w : documents(d, "contextWindows")) {
      long tokens = number(w, "tokens");
      if (tokens > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("field 'tokens' is not a whole number of 32 bits");
      }
      out.put(string(w, "modelId"), (int) tokens);
    }
    return out;
  }

  private static List<ModelPrice> prices(Document d) {
    List<ModelPrice> out = new ArrayList<>();
    for (Document p : documents(d, "prices")) {
      out.add(new ModelPrice(string(p, "modelId"), decimal(p, "inputPerMillion"),
          decimal(p, "outputPerMillion"), optDouble(p, "cacheReadPerMillion"),
          optDouble(p, "cacheWritePerMillion")));
    }
    return out;
  }

  private static double decimal(Document d, String key) {
    if (!(d.get(key) instanceof Number n)) {
      throw new IllegalArgumentException("field '" + key + "' is not a number");
    }
    return n.doubleValue();
  }

  static long[] counters(UsageTotal u) {
    return new long[] {u.turns(), u.calls(), u.errors(), u.promptTokens(),
        u.completionTokens(), u.reasoningTokens(), u.durationMs(), u.costNanos(),
        u.cacheReadTokens(), u.cacheWriteTokens()};
  }

  public static UsageTotal usage(Document d) {
    return Codecs.read(Schema.USAGE, d, x -> new UsageTotal(string(x, "userId"),
        string(x, "providerId"), string(x, "modelId"), number(x, "turns"), number(x, "calls"),
        number(x, "errors"), number(x, "promptTokens"), number(x, "completionTokens"),
        number(x, "reasoningTokens"), number(x, "durationMs"), optNumber(x, "costNanos"),
        optNumber(x, "cacheReadTokens"), optNumber(x, "cacheWriteTokens")));
  }

  /** A turn's model as a subdocument. */
  public static Document turnModel(TurnModel m) {
    return new Document("providerId", m.providerId())
        .append("providerName", m.providerName())
        .append("modelId", m.modelId());
  }

  /** A turn's model from its subdocument, or {@code null} for none. */
  public static TurnModel turnModel(Document d) {
    return d == null ? null : new TurnModel(string(d, "providerId"),
        optString(d, "providerName"), string(d, "modelId"));
  }
}
