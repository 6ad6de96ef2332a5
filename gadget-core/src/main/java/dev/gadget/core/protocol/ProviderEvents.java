package dev.gadget.core.protocol;

import dev.gadget.core.model.ModelPrice;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.UsageTotal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The page's events about LLM providers, models and usage totals (docs/PROTOCOL.md, "Providers
 * and models"), with their payloads. Every one is page to server and answered by an ack; an
 * error is {@code {error}} as everywhere else. No answer ever holds an API key: a provider is
 * shown as a {@link ProviderView}, whose key is only set or not set.
 */
public final class ProviderEvents {
  private ProviderEvents() {}

  /** The largest API key accepted, in characters. */
  public static final int API_KEY = 4_000;

  /** List the user's providers, the server's default first. Ack: {@code {providers}}. */
  public static final String LIST_PROVIDERS = "listProviders";
  /** Add ({@code id} absent) or edit a provider. Ack: {@code {provider}} (a view). */
  public static final String SAVE_PROVIDER = "saveProvider";
  /** Remove a provider. Ack: {@code {ok}}. */
  public static final String DELETE_PROVIDER = "deleteProvider";
  /** Ask a provider itself for its models. Ack: {@code {providerId, models}} or {@code {error}}. */
  public static final String LIST_MODELS = "listModels";
  /** Choose the provider and model of a session's next turns. Ack: {@code {session}}. */
  public static final String SET_SESSION_MODEL = "setSessionModel";
  /** Set how a session's next turns sample. Ack: {@code {session}}. */
  public static final String SET_SESSION_SAMPLING = "setSessionSampling";
  /** Set when a session's next turns defer tools. Ack: {@code {session}}. */
  public static final String SET_SESSION_TOOL_DEFERRAL = "setSessionToolDeferral";
  /** The user's usage totals. Ack: a {@link UsageReply}. */
  public static final String GET_USAGE = "getUsage";

  /**
   * {@code saveProvider}. An absent {@code apiKey} keeps the key a provider has; {@code
   * clearApiKey} removes it. An absent {@code sampling} keeps the provider's; an object (even
   * empty) replaces it.
   */
  public record SaveProvider(
      @Rule(maxLength = Limits.ID) String id,
      @Rule(required = true, maxLength = Limits.NAME) String name,
      @Rule(required = true, maxLength = Limits.ID) String kind,
      @Rule(required = true, maxLength = Limits.GIT_URL) String baseUrl,
      @Rule(maxLength = API_KEY) String apiKey,
      Boolean clearApiKey,
      List<Price> prices,
      SamplingFields sampling,
      List<ContextWindow> contextWindows) {
    @Override
    public String toString() {
      return "SaveProvider[id=" + id + ", name=" + name + ", kind=" + kind + ", baseUrl="
          + baseUrl + ", apiKey=" + (apiKey == null ? "null" : "<redacted>") + ", sampling="
          + sampling + ", contextWindows=" + contextWindows + "]";
    }
  }

  /**
   * A model's context window in {@code saveProvider}, in tokens. {@code contextWindows} absent
   * keeps a provider's; a list (even empty) replaces them.
   */
  public record ContextWindow(
      @Rule(required = true, maxLength = Limits.NAME) String modelId,
      @Rule(required = true) Integer tokens) {}

  /**
   * A model's price in {@code saveProvider}: dollars per million tokens ({@link ModelPrice}).
   * {@code prices} absent keeps a provider's prices; a list (even empty) replaces them. The
   * cache prices are optional: absent, the provider's published ratios apply.
   */
  public record Price(
      @Rule(required = true, maxLength = Limits.NAME) String modelId,
      @Rule(required = true) Double inputPerMillion,
      @Rule(required = true) Double outputPerMillion,
      Double cacheReadPerMillion,
      Double cacheWritePerMillion) {
    /** A price without cache prices. */
    public Price(String modelId, Double inputPerMillion, Double outputPerMillion) {
      this(modelId, inputPerMillion, outputPerMillion, null, null);
    }
  }

  /**
   * How a model samples, in {@code saveProvider} and {@code setSessionSampling}: each value
   * optional (absent: the next one's, see {@link Sampling}). Its ranges are checked by the server,
   * which refuses a value out of range in words ("temperature must be a number from 0 to 2; got
   * 3.0").
   */
  public record SamplingFields(Double temperature, Double topP, Integer topK) {
    /** The sampling these fields set; {@link IllegalArgumentException} when one is out of range. */
    public Sampling toSampling() {
      return new Sampling(temperature, topP, topK);
    }
  }

  /**
   * {@code setSessionSampling}: the session's whole sampling, replacing what it set ({@code
   * sampling} absent or empty: its provider's).
   */
  public record SetSessionSampling(
      @Rule(required = true, maxLength = Limits.ID) String sessionId,
      SamplingFields sampling) {}

  /**
   * {@code setSessionToolDeferral}: {@code auto}, {@code always}, {@code never} or a share of the
   * context budget such as {@code 10%} or {@code 0.1}; absent or empty: as the drone is set.
   */
  public record SetSessionToolDeferral(
      @Rule(required = true, maxLength = Limits.ID) String sessionId,
      @Rule(maxLength = 32) String toolDeferral) {}

  /** {@code deleteProvider} and {@code listModels}. */
  public record ProviderRef(@Rule(required = true, maxLength = Limits.ID) String providerId) {}

  /** {@code setSessionModel}; {@code providerId} absent or {@code "default"}: the server's. */
  public record SetSessionModel(
      @Rule(required = true, maxLength = Limits.ID) String sessionId,
      @Rule(maxLength = Limits.ID) String providerId,
      @Rule(maxLength = Limits.NAME) String modelId) {}

  /**
   * A provider as a page sees it.
   *
   * @param id its id ({@code "default"} for the server's own)
   * @param name its name
   * @param kind ollama, openai or anthropic (or what the server's default runs)
   * @param baseUrl where it is
   * @param apiKeySet whether it has an API key; the key itself is never sent
   * @param isDefault whether this is the server operator's provider
   * @param defaultModel the model it runs when a chat picked none, or {@code null}
   * @param createdAt when it was added, or {@code null} for the default
   * @param prices what its models cost (dollars per million tokens)
   * @param sampling how its models sample unless a chat says otherwise, or {@code null}; for the
   *     server's default, the operator's parameters (which also fill in what a user's provider
   *     leaves unset)
   * @param contextWindows the context window its models were given, by model id (empty for the
   *     server's default)
   */
  public record ProviderView(String id, String name, String kind, String baseUrl,
      boolean apiKeySet, boolean isDefault, String defaultModel, Instant createdAt,
      List<ModelPrice> prices, Sampling sampling, java.util.Map<String, Integer> contextWindows) {
    /** The view of a user's provider. */
    public static ProviderView of(ModelProvider p) {
      return new ProviderView(p.id(), p.name(), p.kind(), p.baseUrl(), p.hasApiKey(), false,
          null, p.createdAt(), p.prices(), p.sampling(), p.contextWindows());
    }
  }

  /**
   * {@code getUsage}'s answer: one total per provider and model, and their sums per provider and
   * for the user (those have {@code modelId} {@code "*"}; the user's has {@code providerId}
   * {@code "*"} too).
   */
  public record UsageReply(List<UsageTotal> byModel, List<UsageTotal> byProvider,
      UsageTotal total) {
    /** The answer for {@code userId}'s totals per provider and model. */
    public static UsageReply of(String userId, List<UsageTotal> byModel) {
      Map<String, UsageTotal> byProvider = new TreeMap<>();
      UsageTotal total = new UsageTotal(userId, "*", "*", 0, 0, 0, 0, 0, 0, 0);
      for (UsageTotal u : byModel) {
        byProvider.merge(u.providerId(), new UsageTotal(userId, u.providerId(), "*", 0, 0, 0,
            0, 0, 0, 0).plus(u), UsageTotal::plus);
        total = total.plus(u);
      }
      return new UsageReply(List.copyOf(byModel), List.copyOf(byProvider.values()), total);
    }
  }
}
