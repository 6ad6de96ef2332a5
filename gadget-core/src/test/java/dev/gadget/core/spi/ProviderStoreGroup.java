package dev.gadget.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ModelPrice;
import dev.gadget.core.model.ModelProvider;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.UsageTotal;
import dev.gadget.core.model.User;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The part of {@link ChatStoreContract} about {@link ProviderStore}: providers, a session's
 * chosen model and sampling, a turn's recorded model and usage totals. Runs as a nested group of the kit.
 */
public abstract class ProviderStoreGroup {
  private final ChatStoreContract kit;

  protected ProviderStoreGroup(ChatStoreContract kit) {
    this.kit = kit;
  }

  private ChatStore store() {
    return kit.store;
  }

  private ModelProvider provider(User owner, String name, String sealed) {
    ModelProvider p = new ModelProvider(Ids.next(), owner.id(), name, "openai",
        "http://127.0.0.1:9/v1", sealed, ChatStoreContract.T0);
    store().providers().saveProvider(p);
    return p;
  }

  @Test
  void keepsEachUsersProvidersInIdOrderAndReplacesByIdAndDeletes() {
    User ada = kit.user("ada");
    User bob = kit.user("bob");
    ModelProvider a1 = provider(ada, "one", "gk1:k:sealed-1");
    ModelProvider a2 = provider(ada, "two", null);
    ModelProvider b1 = provider(bob, "bob's", "gk1:k:sealed-b");
    ProviderStore ps = store().providers();
    assertThat(ps.listProviders(ada.id())).containsExactly(a1, a2);
    assertThat(ps.listProviders(bob.id())).containsExactly(b1);
    assertThat(ps.findProvider(a1.id())).contains(a1);
    assertThat(ps.findProvider("nope")).isEmpty();

    ModelProvider renamed = new ModelProvider(a1.id(), ada.id(), "renamed", "ollama",
        "http://127.0.0.1:11434", null, a1.createdAt());
    ps.saveProvider(renamed);
    assertThat(ps.listProviders(ada.id())).containsExactly(renamed, a2);
    assertThat(ps.findProvider(a1.id()).orElseThrow().hasApiKey()).isFalse();

    assertThat(ps.deleteProvider(a2.id())).isTrue();
    assertThat(ps.deleteProvider(a2.id())).isFalse();
    assertThat(ps.listProviders(ada.id())).containsExactly(renamed);
  }

  @Test
  void refusesAProviderOfAnUnknownUser() {
    ModelProvider p = new ModelProvider(Ids.next(), "nobody", "x", "openai",
        "http://127.0.0.1:9", null, ChatStoreContract.T0);
    assertThatThrownBy(() -> store().providers().saveProvider(p))
        .isInstanceOfSatisfying(StoreException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.NOT_FOUND));
    assertThat(store().providers().findProvider(p.id())).isEmpty();
  }

  @Test
  void aSessionKeepsItsChosenProviderAndModel() {
    User ada = kit.user("ada");
    ChatSession s = kit.session(ada, kit.project(ada, "p"));
    store().setSessionWorkspace(s.id(), "ws-1");
    store().providers().setSessionModel(s.id(), "prov-1", "llama3.2:1b");
    ChatSession chosen = store().findSession(s.id()).orElseThrow();
    assertThat(chosen.providerId()).isEqualTo("prov-1");
    assertThat(chosen.modelId()).isEqualTo("llama3.2:1b");
    assertThat(chosen.workspaceId()).isEqualTo("ws-1");
    assertThat(store().listSessions(ada.id(), null)).containsExactly(chosen);

    store().setSessionWorkspace(s.id(), "ws-2");
    assertThat(store().findSession(s.id()).orElseThrow().modelId()).isEqualTo("llama3.2:1b");
    store().providers().setSessionModel(s.id(), null, null);
    assertThat(store().findSession(s.id()).orElseThrow())
        .isEqualTo(s.withWorkspaceId("ws-2"));
    assertThatThrownBy(() -> store().providers().setSessionModel("nope", "p", "m"))
        .isInstanceOfSatisfying(StoreException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.NOT_FOUND));
  }

  @Test
  void aProviderKeepsItsSamplingAndOneThatSetsNoneComesBackWithNone() {
    User ada = kit.user("ada");
    ProviderStore ps = store().providers();
    Sampling all = new Sampling(0.2, 0.9, 40);
    ModelProvider p = new ModelProvider(Ids.next(), ada.id(), "Tuned", "ollama",
        "http://127.0.0.1:11434", null, ChatStoreContract.T0, List.of(), all);
    ps.saveProvider(p);
    assertThat(ps.findProvider(p.id()).orElseThrow().sampling()).isEqualTo(all);
    assertThat(ps.listProviders(ada.id())).containsExactly(p);

    Sampling some = new Sampling(null, 0.5, null);
    ps.saveProvider(new ModelProvider(p.id(), ada.id(), "Tuned", "ollama",
        "http://127.0.0.1:11434", null, ChatStoreContract.T0, List.of(), some));
    assertThat(ps.findProvider(p.id()).orElseThrow().sampling()).isEqualTo(some);

    // a provider saved without sampling (as every one was before it existed) has none
    ModelProvider plain = provider(ada, "plain", null);
    assertThat(ps.findProvider(plain.id()).orElseThrow().sampling()).isNull();
    ps.saveProvider(new ModelProvider(p.id(), ada.id(), "Tuned", "ollama",
        "http://127.0.0.1:11434", null, ChatStoreContract.T0, List.of(), Sampling.NONE));
    assertThat(ps.findProvider(p.id()).orElseThrow().sampling()).isNull();
  }

  @Test
  void aProviderKeepsItsModelsContextWindowsAndOneSavedWithoutHasNone() {
    User ada = kit.user("ada");
    ProviderStore ps = store().providers();
    Map<String, Integer> windows = Map.of("gpt-4.1", 1_047_576, "qwen3:8b", 32_768);
    ModelProvider p = new ModelProvider(Ids.next(), ada.id(), "Sized", "openai",
        "http://127.0.0.1:8000/v1", null, ChatStoreContract.T0, List.of(), null, windows);
    ps.saveProvider(p);
    assertThat(ps.findProvider(p.id()).orElseThrow().contextWindows())
        .isEqualTo(windows).containsKeys("gpt-4.1");
    assertThat(ps.listProviders(ada.id())).containsExactly(p);
    ps.saveProvider(new ModelProvider(p.id(), ada.id(), "Sized", "openai",
        "http://127.0.0.1:8000/v1", null, ChatStoreContract.T0, List.of(), null));
    assertThat(ps.findProvider(p.id()).orElseThrow().contextWindows()).isEmpty();
  }

  @Test
  void aSessionKeepsItsOwnSamplingBesideItsModelUntilItClearsIt() {
    User ada = kit.user("ada");
    ChatSession s = kit.session(ada, kit.project(ada, "p"));
    ProviderStore ps = store().providers();
    assertThat(store().findSession(s.id()).orElseThrow().sampling()).isNull();
    ps.setSessionModel(s.id(), "prov-1", "qwen3:0.6b");
    Sampling mine = new Sampling(1.5, null, 7);
    ps.setSessionSampling(s.id(), mine);
    ChatSession tuned = store().findSession(s.id()).orElseThrow();
    assertThat(tuned.sampling()).isEqualTo(mine);
    assertThat(tuned.modelId()).isEqualTo("qwen3:0.6b");
    assertThat(store().listSessions(ada.id(), null)).containsExactly(tuned);

    // other writes to the session keep it, and it keeps them
    store().setSessionWorkspace(s.id(), "ws-1");
    store().renameSession(s.id(), "renamed");
    ps.setSessionModel(s.id(), null, null);
    assertThat(store().findSession(s.id()).orElseThrow().sampling()).isEqualTo(mine);
    ps.setSessionSampling(s.id(), new Sampling(0.0, null, null));
    assertThat(store().findSession(s.id()).orElseThrow())
        .isEqualTo(s.withWorkspaceId("ws-1").withName("renamed")
            .withSampling(new Sampling(0.0, null, null)));

    ps.setSessionSampling(s.id(), Sampling.NONE);
    assertThat(store().findSession(s.id()).orElseThrow().sampling()).isNull();
    ps.setSessionSampling(s.id(), mine);
    ps.setSessionSampling(s.id(), null);
    assertThat(store().findSession(s.id()).orElseThrow())
        .isEqualTo(s.withWorkspaceId("ws-1").withName("renamed"));
    assertThatThrownBy(() -> ps.setSessionSampling("nope", mine))
        .isInstanceOfSatisfying(StoreException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.NOT_FOUND));
  }

  @Test
  void aSessionKeepsItsToolDeferralUntilClearedAndOtherWritesKeepIt() {
    User ada = kit.user("ada");
    ChatSession s = kit.session(ada, kit.project(ada, "p"));
    ProviderStore ps = store().providers();
    assertThat(store().findSession(s.id()).orElseThrow().toolDeferral()).isNull();
    ps.setSessionToolDeferral(s.id(), "always");
    assertThat(store().findSession(s.id()).orElseThrow().toolDeferral()).isEqualTo("always");
    assertThat(store().listSessions(ada.id(), null)).containsExactly(s.withToolDeferral("always"));

    store().renameSession(s.id(), "renamed");
    ps.setSessionSampling(s.id(), new Sampling(0.5, null, null));
    ps.setSessionModel(s.id(), null, "m");
    ps.setSessionToolDeferral(s.id(), "25%");
    assertThat(store().findSession(s.id()).orElseThrow()).isEqualTo(s.withName("renamed")
        .withSampling(new Sampling(0.5, null, null)).withModel(null, "m")
        .withToolDeferral("25%"));

    ps.setSessionToolDeferral(s.id(), null);
    assertThat(store().findSession(s.id()).orElseThrow().toolDeferral()).isNull();
    assertThat(store().findSession(s.id()).orElseThrow().sampling())
        .isEqualTo(new Sampling(0.5, null, null));
    assertThatThrownBy(() -> ps.setSessionToolDeferral("nope", "never"))
        .isInstanceOfSatisfying(StoreException.class,
            e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.NOT_FOUND));
  }

  @Test
  void aTurnKeepsTheProviderAndModelThatProducedIt() {
    User ada = kit.user("ada");
    ChatSession s = kit.session(ada, kit.project(ada, "p"));
    TurnModel model = new TurnModel("prov-1", "Local Ollama", "qwen3:0.6b");
    ChatTurn t = ChatTurn.start(Ids.next(), s.id(), ada.id(), 0, "hi", "build",
        ChatStoreContract.T0).withModel(model);
    store().createTurn(t);
    store().appendBlock(t.id(), new TurnBlock.Responding(0, ChatStoreContract.T0, "hello"));
    store().setTurnDrone(t.id(), "drone-1");
    store().finalizeTurn(t.id(), TurnStatus.FINISHED, TurnStats.EMPTY, null,
        ChatStoreContract.T0);
    assertThat(store().findTurn(t.id()).orElseThrow().model()).isEqualTo(model);
    assertThat(store().listTurns(s.id())).singleElement()
        .satisfies(x -> assertThat(x.model()).isEqualTo(model));
    ChatTurn old = kit.turn(s, 1);
    assertThat(store().findTurn(old.id()).orElseThrow().model()).isNull();
  }

  @Test
  void usageTotalsAreTheSumOfTheTurnsPerUserProviderAndModel() {
    User ada = kit.user("ada");
    User bob = kit.user("bob");
    ProviderStore ps = store().providers();
    TurnModel small = new TurnModel("p1", "P1", "small");
    TurnModel big = new TurnModel("p1", "P1", "big");
    long prompt = 0;
    long calls = 0;
    for (int i = 1; i <= 10; i++) {
      TurnStats stats = new TurnStats(100 * i, 10 * i, i, 0, i % 3 + 1, 1000 + i);
      prompt += 100 * i;
      calls += i % 3 + 1;
      ps.addUsage(UsageTotal.ofTurn(ada.id(), i % 2 == 0 ? small : big, stats, i == 7));
    }
    ps.addUsage(UsageTotal.ofTurn(bob.id(), small, new TurnStats(5, 5, 0, 0, 1, 5), false));
    List<UsageTotal> mine = ps.listUsage(ada.id());
    assertThat(mine).extracting(UsageTotal::modelId).containsExactly("big", "small");
    UsageTotal sum = mine.get(0).plus(mine.get(1));
    assertThat(sum.turns()).isEqualTo(10);
    assertThat(sum.promptTokens()).isEqualTo(prompt);
    assertThat(sum.completionTokens()).isEqualTo(550);
    assertThat(sum.reasoningTokens()).isEqualTo(55);
    assertThat(sum.calls()).isEqualTo(calls);
    assertThat(sum.errors()).isEqualTo(1);
    assertThat(sum.durationMs()).isEqualTo(10_055);
    assertThat(mine.get(0).errors()).isEqualTo(1);
    assertThat(ps.listUsage(bob.id())).singleElement()
        .satisfies(u -> assertThat(u.promptTokens()).isEqualTo(5));
    assertThat(ps.listUsage("nobody")).isEmpty();
  }

  @Test
  void keepsAProvidersPricesAndAddsEachTurnsCostToTheTotal() {
    User ada = kit.user("ada");
    ProviderStore ps = store().providers();
    ModelPrice mini = new ModelPrice("gpt-4o-mini", 0.15, 0.6);
    ModelPrice big = new ModelPrice("gpt-4o", 2.5, 10);
    ModelProvider p = new ModelProvider(Ids.next(), ada.id(), "OpenAI", "openai",
        "https://api.openai.com", null, ChatStoreContract.T0, List.of(mini, big));
    ps.saveProvider(p);
    assertThat(ps.findProvider(p.id()).orElseThrow().prices()).containsExactly(mini, big);
    assertThat(ps.findProvider(p.id()).orElseThrow().priceOf("gpt-4o")).isEqualTo(big);

    TurnModel model = new TurnModel(p.id(), "OpenAI", "gpt-4o-mini");
    long expected = 0;
    for (int i = 1; i <= 10; i++) {
      TurnStats stats = new TurnStats(1_000 * i, 300 * i, 50 * i, 0, 1, 10);
      expected += mini.costNanos(stats.promptTokens(), stats.completionTokens());
      ps.addUsage(UsageTotal.ofTurn(ada.id(), model, stats, false, mini));
    }
    // 55,000 prompt tokens at $0.15/M and 16,500 completion tokens at $0.60/M: $0.01815
    assertThat(expected).isEqualTo(18_150_000L);
    assertThat(ps.listUsage(ada.id())).singleElement().extracting(UsageTotal::costNanos)
        .isEqualTo(18_150_000L);

    ps.saveProvider(new ModelProvider(p.id(), ada.id(), "OpenAI", "openai",
        "https://api.openai.com", null, ChatStoreContract.T0));
    assertThat(ps.findProvider(p.id()).orElseThrow().prices()).isEmpty();
  }

  @Test
  void addsThePromptCachesReadsAndWritesAndCostsThemAtTheirOwnPrices() {
    User ada = kit.user("ada");
    ProviderStore ps = store().providers();
    ModelPrice sonnet = new ModelPrice("claude-sonnet-4-5", 3, 15);
    ModelPrice own = new ModelPrice("claude-haiku-4-5", 1, 5, 0.2, 1.5);
    ModelProvider p = new ModelProvider(Ids.next(), ada.id(), "Claude", "anthropic",
        "https://api.anthropic.com", null, ChatStoreContract.T0, List.of(sonnet, own));
    ps.saveProvider(p);
    assertThat(ps.findProvider(p.id()).orElseThrow().prices()).containsExactly(sonnet, own);

    ModelPrice.CacheRatios ratios = ModelPrice.CacheRatios.of("anthropic", "claude-sonnet-4-5");
    TurnModel model = new TurnModel(p.id(), "Claude", "claude-sonnet-4-5");
    for (int i = 0; i < 3; i++) {
      // 100,000 input tokens: 90,000 read, 8,000 written, 2,000 plain; 1,000 output
      TurnStats stats = new TurnStats(100_000, 1_000, 0, 0, 30, 10).withCache(90_000, 8_000);
      ps.addUsage(UsageTotal.ofTurn(ada.id(), model, stats, false, sonnet, ratios));
    }
    UsageTotal total = ps.listUsage(ada.id()).get(0);
    assertThat(total.cacheReadTokens()).isEqualTo(270_000);
    assertThat(total.cacheWriteTokens()).isEqualTo(24_000);
    assertThat(total.promptTokens()).isEqualTo(300_000);
    // per turn: 2,000 x $3 + 90,000 x $0.30 + 8,000 x $3.75 + 1,000 x $15 per million = $0.078
    assertThat(total.costNanos()).isEqualTo(3 * 78_000_000L);
    // uncached, the same turns cost 100,000 x $3 + 1,000 x $15 per million = $0.315 each
    assertThat(3 * sonnet.costNanos(100_000, 1_000)).isEqualTo(3 * 315_000_000L);

    TurnModel haiku = new TurnModel(p.id(), "Claude", "claude-haiku-4-5");
    ps.addUsage(UsageTotal.ofTurn(ada.id(), haiku,
        new TurnStats(10_000, 0, 0, 0, 1, 1).withCache(5_000, 5_000), false, own, ratios));
    // its own cache prices win over the ratios: 5,000 x $0.20 + 5,000 x $1.50 per million
    assertThat(ps.listUsage(ada.id())).filteredOn(u -> u.modelId().equals("claude-haiku-4-5"))
        .singleElement().extracting(UsageTotal::costNanos).isEqualTo(8_500_000L);
  }
}
