package dev.gadget.core.server.internal;

import static dev.gadget.core.server.internal.Requests.handle;
import static dev.gadget.core.server.internal.Requests.reply;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.Ids;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ModelPrice;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.ProviderEvents;
import dev.gadget.core.protocol.ProviderEvents.ProviderView;
import dev.gadget.core.server.SecretKeys;
import dev.gadget.core.spi.ProviderStore;
import dev.gadget.core.spi.StoreException;
import dev.gadget.core.transport.Ack;
import dev.gadget.core.transport.Connection;
import java.net.URI;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A page's requests about its user's LLM providers: add, edit, remove and list them (keys only
 * ever as set or not set), list a provider's models from the provider itself, choose a session's
 * provider, model and sampling, read the usage totals.
 */
final class ProviderRequests {
  static final Set<String> KINDS = Set.of("ollama", "openai", "openai-responses", "llamacpp",
      "anthropic");

  private final ServerSettings settings;
  private final Ownership owned;
  private final ProviderResolver resolver;
  private final ModelLister lister = new ModelLister();
  private final ThreadPoolExecutor listing = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS,
      new ArrayBlockingQueue<>(32), r -> {
        Thread t = new Thread(r, "gadget-model-list");
        t.setDaemon(true);
        return t;
      });

  ProviderRequests(ServerSettings settings, Ownership owned, ProviderResolver resolver) {
    this.settings = settings;
    this.owned = owned;
    this.resolver = resolver;
    listing.allowCoreThreadTimeOut(true);
  }

  void register(Connection c, String userId) {
    handle(c, ProviderEvents.LIST_PROVIDERS, JsonNode.class, (req, ack) -> {
      List<ProviderView> views = new ArrayList<>();
      views.add(defaultView(userId));
      providers().listProviders(userId).forEach(p -> views.add(ProviderView.of(p)));
      reply(ack, Map.of("providers", views));
    });
    handle(c, ProviderEvents.SAVE_PROVIDER, ProviderEvents.SaveProvider.class, (req, ack) ->
        reply(ack, Map.of("provider", ProviderView.of(save(userId, req)))));
    handle(c, ProviderEvents.DELETE_PROVIDER, ProviderEvents.ProviderRef.class, (req, ack) -> {
      providers().deleteProvider(resolver.owned(userId, req.providerId()).id());
      reply(ack, Payloads.OkReply.success());
    });
    handle(c, ProviderEvents.LIST_MODELS, ProviderEvents.ProviderRef.class, (req, ack) ->
        listModels(userId, req.providerId(), ack));
    handle(c, ProviderEvents.SET_SESSION_MODEL, ProviderEvents.SetSessionModel.class,
        (req, ack) -> {
          ChatSession s = owned.session(userId, req.sessionId());
          String providerId = req.providerId();
          if (providerId != null && !TurnModel.DEFAULT_PROVIDER.equals(providerId)) {
            providerId = resolver.owned(userId, providerId).id();
          }
          String model = req.modelId() == null || req.modelId().isBlank() ? null : req.modelId();
          providers().setSessionModel(s.id(), providerId, model);
          reply(ack, Map.of("session", s.withModel(providerId, model)));
        });
    handle(c, ProviderEvents.SET_SESSION_SAMPLING, ProviderEvents.SetSessionSampling.class,
        (req, ack) -> {
          ChatSession s = owned.session(userId, req.sessionId());
          Sampling sampling = sampling(req.sampling());
          providers().setSessionSampling(s.id(), sampling);
          reply(ack, Map.of("session", s.withSampling(sampling)));
        });
    handle(c, ProviderEvents.SET_SESSION_TOOL_DEFERRAL,
        ProviderEvents.SetSessionToolDeferral.class, (req, ack) -> {
          ChatSession s = owned.session(userId, req.sessionId());
          String deferral = toolDeferral(req.toolDeferral());
          providers().setSessionToolDeferral(s.id(), deferral);
          reply(ack, Map.of("session", s.withToolDeferral(deferral)));
        });
    handle(c, ProviderEvents.GET_USAGE, JsonNode.class, (req, ack) ->
        reply(ack, ProviderEvents.UsageReply.of(userId, providers().listUsage(userId))));
  }

  /** A chat's tool deferral checked and written as people read it, or null (the drone's). */
  static String toolDeferral(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    String t = text.strip().toLowerCase(Locale.ROOT);
    ToolDeferral d;
    try {
      d = ToolDeferral.parse(t);
    } catch (IllegalArgumentException e) {
      throw new RequestException(e.getMessage());
    }
    if (t.equals("auto") || d.mode() != ToolDeferral.Mode.SHARE) {
      return t;
    }
    return BigDecimal.valueOf(d.share() * 100).stripTrailingZeros().toPlainString()
        + "%";
  }

  private ModelProvider save(String userId, ProviderEvents.SaveProvider req) {
    String kind = req.kind().trim().toLowerCase();
    if (!KINDS.contains(kind)) {
      throw new RequestException(
          "kind must be ollama, openai, openai-responses, llamacpp or anthropic");
    }
    String baseUrl = req.baseUrl().trim();
    try {
      URI u = URI.create(baseUrl);
      if (u.getScheme() == null || !u.getScheme().matches("https?") || u.getHost() == null) {
        throw new IllegalArgumentException();
      }
    } catch (IllegalArgumentException e) {
      throw new RequestException("baseUrl must be an http or https URL, such as "
          + "https://api.openai.com/v1");
    }
    checkHost(baseUrl);
    ModelProvider old = req.id() == null ? null : resolver.owned(userId, req.id());
    String id = old == null ? Ids.next() : old.id();
    String sealed = old == null ? null : old.sealedApiKey();
    if (Boolean.TRUE.equals(req.clearApiKey())) {
      sealed = null;
    }
    if (req.apiKey() != null && !req.apiKey().isBlank()) {
      SecretKeys keys = settings.secrets();
      if (keys == null) {
        throw new RequestException("this server keeps no API keys: it was started without a "
            + "secret key (see docs/PROVIDERS.md)");
      }
      sealed = keys.seal(req.apiKey().trim(), ProviderResolver.sealContext(userId, id));
    }
    List<ModelPrice> prices = req.prices() == null
        ? (old == null ? List.of() : old.prices()) : prices(req.prices());
    Sampling sampling = req.sampling() == null
        ? (old == null ? null : old.sampling()) : sampling(req.sampling());
    java.util.Map<String, Integer> windows = req.contextWindows() == null
        ? (old == null ? null : old.contextWindows()) : windows(req.contextWindows());
    ModelProvider p = new ModelProvider(id, userId, req.name().trim(), kind, baseUrl, sealed,
        old == null ? settings.clock().instant() : old.createdAt(), prices, sampling, windows);
    providers().saveProvider(p);
    return p;
  }

  /** Refuses a user's provider URL that the server's {@link ProviderHosts} does not allow. */
  private void checkHost(String baseUrl) {
    settings.providerHosts().refusal(URI.create(baseUrl)).ifPresent(why -> {
      throw new RequestException(why);
    });
  }

  /** The sampling a page sent, or its values out of range refused in words. */
  private static Sampling sampling(ProviderEvents.SamplingFields given) {
    if (given == null) {
      return null;
    }
    try {
      return Sampling.orNull(given.toSampling());
    } catch (IllegalArgumentException e) {
      throw new RequestException(e.getMessage());
    }
  }

  /** The context windows a page sent, by model, or what is wrong with them in words. */
  private static java.util.Map<String, Integer> windows(
      List<ProviderEvents.ContextWindow> given) {
    if (given.size() > ModelProvider.MAX_PRICES) {
      throw new RequestException("a provider keeps at most " + ModelProvider.MAX_PRICES
          + " context windows; got " + given.size());
    }
    java.util.Map<String, Integer> out = new java.util.TreeMap<>();
    for (ProviderEvents.ContextWindow w : given) {
      String model = w.modelId().trim();
      if (w.tokens() < ModelProvider.MIN_CONTEXT_WINDOW) {
        throw new RequestException("the context window of " + model + " must be at least "
            + ModelProvider.MIN_CONTEXT_WINDOW + " tokens; got " + w.tokens());
      }
      if (out.put(model, w.tokens()) != null) {
        throw new RequestException("the model " + model + " has two context windows; give it "
            + "one");
      }
    }
    return out;
  }

  private static List<ModelPrice> prices(List<ProviderEvents.Price> given) {
    if (given.size() > ModelProvider.MAX_PRICES) {
      throw new RequestException("a provider keeps at most " + ModelProvider.MAX_PRICES
          + " prices; got " + given.size());
    }
    List<ModelPrice> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (ProviderEvents.Price p : given) {
      String model = p.modelId().trim();
      if (!seen.add(model)) {
        throw new RequestException("the model " + model + " has two prices; give it one");
      }
      try {
        out.add(new ModelPrice(model, p.inputPerMillion(), p.outputPerMillion(),
            p.cacheReadPerMillion(), p.cacheWritePerMillion()));
      } catch (IllegalArgumentException e) {
        throw new RequestException("the price of " + model + ": " + e.getMessage());
      }
    }
    return out;
  }

  private void listModels(String userId, String providerId, Ack ack) {
    String name;
    String kind;
    String baseUrl;
    String key;
    boolean usersOwn = !TurnModel.DEFAULT_PROVIDER.equals(providerId);
    if (!usersOwn) {
      ProviderConfig d = defaultConfig(userId);
      if (!KINDS.contains(d.sdk())) {
        // a default the server cannot ask (such as the demo's scripted model): its one model
        reply(ack, Map.of("providerId", providerId, "models", List.of(d.modelId())));
        return;
      }
      name = ProviderResolver.DEFAULT_NAME;
      kind = d.sdk();
      baseUrl = d.baseUrl();
      key = d.apiKey();
    } else {
      ModelProvider p = resolver.owned(userId, providerId);
      name = p.name();
      kind = p.kind();
      baseUrl = p.baseUrl();
      key = resolver.apiKey(p);
    }
    try {
      listing.execute(() -> {
        try {
          if (usersOwn) {
            checkHost(baseUrl); // again: the operator's rule or the host's address may change
          }
          reply(ack, Map.of("providerId", providerId,
              "models", lister.list(name, kind, baseUrl, key)));
        } catch (RequestException | StoreException e) {
          reply(ack, new Payloads.ErrorReply(e.getMessage()));
        }
      });
    } catch (RejectedExecutionException e) {
      throw new RequestException("too many model lists are being fetched; try again shortly");
    }
  }

  private ProviderConfig defaultConfig(String userId) {
    return settings.providers().apply(new ChatSession("-", userId, "-", "-", null,
        settings.clock().instant()));
  }

  private ProviderView defaultView(String userId) {
    ProviderConfig d = defaultConfig(userId);
    return new ProviderView(TurnModel.DEFAULT_PROVIDER, ProviderResolver.DEFAULT_NAME, d.sdk(),
        d.baseUrl(), d.apiKey() != null, true, d.modelId(), null, List.of(), samplingOf(d),
        java.util.Map.of());
  }

  /** The operator's sampling, or none when an embedder's is out of range (the LLM's to refuse). */
  private static Sampling samplingOf(ProviderConfig d) {
    try {
      return Sampling.orNull(Sampling.of(d.params()));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** Asked at each use: a store is reached only when a request needs it. */
  private ProviderStore providers() {
    return settings.store().providers();
  }
}
