package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.llm.Recordings;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ProviderEvents;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.store.JournaledChatStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Users' own providers end to end: a real server, real drones, a real OpenAI-compatible HTTP
 * server on 127.0.0.1 recording every request the drones' clients send, a journaled store on
 * disk. Whose key goes where, which model runs, what a turn records and what the totals add up
 * to.
 */
class ProvidersRuntimeTest {
  static final String ALICE_KEY = "sk-alice-0123456789-very-secret";
  static final String OPERATOR_KEY = "sk-operator-0123456789";
  static final String REPLY = Recordings.load("openai/text-with-usage.sse");

  @TempDir Path tmp;
  RuntimeFixture fx;
  LlmTestServer llm;
  final PrintStream oldErr = System.err;
  final ByteArrayOutputStream log = new ByteArrayOutputStream();

  @AfterEach
  void tearDown() {
    System.setErr(oldErr);
    if (fx != null) {
      fx.close();
    }
    if (llm != null) {
      llm.close();
    }
  }

  /** A server whose default is the recording LLM server, with a secret key; stderr captured. */
  private void start() throws Exception {
    System.setErr(new PrintStream(new TeeStream(oldErr, log), true, StandardCharsets.UTF_8));
    llm = LlmTestServer.start();
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    fx = new RuntimeFixture(tmp, JournaledChatStore.open(tmp.resolve("store")));
    // the providers are local HTTP servers: this server lets users name private hosts
    fx.server(b -> b.secretKeys(SecretKeys.of(key)).providerHosts(ProviderHosts.allowPrivate())
        .provider(new ProviderConfig("openai", llm.v1().toString(), OPERATOR_KEY,
            "default-model", null)));
  }

  /** A drone whose LLM client is a real OpenAiClient; every config it is given is recorded. */
  private GadgetDrone drone(Person owner, String workspace, List<ProviderConfig> seen) {
    GadgetDrone d = GadgetDrone.builder()
        .transport(fx.transport.client())
        .token(owner.droneToken())
        .workspaceDir(tmp.resolve(workspace))
        .hostname("test-host")
        .llmClients(p -> {
          seen.add(p);
          OpenAiClient.Builder b = OpenAiClient.builder().baseUrl(p.baseUrl());
          return (p.apiKey() == null ? b : b.apiKey(p.apiKey())).build();
        })
        .heartbeatInterval(Duration.ofMillis(100))
        .ackTimeout(Duration.ofSeconds(2))
        .build();
    d.start();
    fx.closeables.add(d);
    return d;
  }

  private String submit(Page page, String session, String prompt) throws Exception {
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", prompt));
    assertThat(reply.path("error").isMissingNode()).as(reply.toString()).isTrue();
    return reply.get("turnId").asText();
  }

  private String addProvider(Page page, String name, String kind, String url, String apiKey)
      throws Exception {
    Map<String, Object> req = new HashMap<>(Map.of("name", name, "kind", kind, "baseUrl", url));
    if (apiKey != null) {
      req.put("apiKey", apiKey);
    }
    JsonNode reply = page.request(ProviderEvents.SAVE_PROVIDER, req);
    assertThat(reply.toString()).doesNotContain(String.valueOf(apiKey));
    return reply.get("provider").get("id").asText();
  }

  private void chooseModel(Page page, String session, String providerId, String model)
      throws Exception {
    JsonNode reply = page.request(ProviderEvents.SET_SESSION_MODEL,
        Map.of("sessionId", session, "providerId", providerId, "modelId", model));
    assertThat(reply.path("session").path("modelId").asText()).as(reply.toString())
        .isEqualTo(model);
  }

  private static String auth(LlmTestServer.Recorded r) {
    return String.valueOf(r.header("Authorization"));
  }

  @Test
  void alicesKeyGoesOnlyToAlicesDroneAndIsNeverStoredLoggedOrAnswered() throws Exception {
    start();
    Person alice = fx.person("alice");
    Person bob = fx.person("bob");
    List<ProviderConfig> aliceSeen = new CopyOnWriteArrayList<>();
    List<ProviderConfig> bobSeen = new CopyOnWriteArrayList<>();
    drone(alice, "ws-alice", aliceSeen);
    drone(bob, "ws-bob", bobSeen);
    Page alicePage = fx.page(alice.pageToken()).connected();
    Page bobPage = fx.page(bob.pageToken()).connected();
    await("drones registered", () -> fx.store.listDrones(alice.user().id()).size() == 1
        && fx.store.listDrones(bob.user().id()).size() == 1);

    String providerId = addProvider(alicePage, "Alice's", "openai", llm.v1().toString(),
        ALICE_KEY);
    JsonNode listed = alicePage.request(ProviderEvents.LIST_PROVIDERS, Map.of());
    assertThat(listed.toString()).doesNotContain(ALICE_KEY).doesNotContain(OPERATOR_KEY)
        .doesNotContain("gk1:");
    assertThat(listed.get("providers").get(1).get("apiKeySet").asBoolean()).isTrue();
    assertThat(bobPage.request(ProviderEvents.LIST_PROVIDERS, Map.of()).get("providers"))
        .hasSize(1);
    // bob cannot choose alice's provider: it is "not found" to him
    String bobSession = fx.watchedSession(bobPage);
    JsonNode refused = bobPage.request(ProviderEvents.SET_SESSION_MODEL,
        Map.of("sessionId", bobSession, "providerId", providerId, "modelId", "alice-model"));
    assertThat(refused.get("error").asText()).isEqualTo("provider not found");

    String aliceSession = fx.watchedSession(alicePage);
    chooseModel(alicePage, aliceSession, providerId, "alice-model");
    llm.enqueue(REPLY).header("Content-Type", "text/event-stream");
    llm.enqueue(REPLY).header("Content-Type", "text/event-stream");
    String aliceTurn = submit(alicePage, aliceSession, "alice asks");
    assertThat(alicePage.completion(aliceTurn).get("status").asText()).isEqualTo("finished");
    String bobTurn = submit(bobPage, bobSession, "bob asks");
    assertThat(bobPage.completion(bobTurn).get("status").asText()).isEqualTo("finished");

    // on the wire to the LLM: alice's key with alice's request only
    LlmTestServer.Recorded first = llm.takeRequest();
    LlmTestServer.Recorded second = llm.takeRequest();
    assertThat(auth(first)).isEqualTo("Bearer " + ALICE_KEY);
    assertThat(first.json().get("model").asText()).isEqualTo("alice-model");
    assertThat(auth(second)).isEqualTo("Bearer " + OPERATOR_KEY);
    assertThat(second.json().get("model").asText()).isEqualTo("default-model");
    // what each drone was sent
    assertThat(aliceSeen).extracting(ProviderConfig::apiKey).containsOnly(ALICE_KEY);
    assertThat(bobSeen).isNotEmpty().extracting(ProviderConfig::apiKey)
        .containsOnly(OPERATOR_KEY);
    assertThat(bobSeen.toString()).doesNotContain(ALICE_KEY);

    // each stored turn names its provider and model
    ChatTurn a = fx.store.findTurn(aliceTurn).orElseThrow();
    assertThat(a.model()).isEqualTo(new TurnModel(providerId, "Alice's", "alice-model"));
    assertThat(fx.store.findTurn(bobTurn).orElseThrow().model())
        .isEqualTo(new TurnModel("default", "Server default", "default-model"));

    // the key is in no store file, no .gadget file, no log line, no page answer
    fx.store.close();
    assertThat(filesUnder(tmp.resolve("store"))).contains("gk1:").doesNotContain(ALICE_KEY);
    assertThat(RuntimeFixture.gadgetFiles(tmp.resolve("ws-alice"))).doesNotContain(ALICE_KEY);
    assertThat(RuntimeFixture.gadgetFiles(tmp.resolve("ws-bob"))).doesNotContain(ALICE_KEY);
    assertThat(log.toString(StandardCharsets.UTF_8)).contains("turn " + aliceTurn)
        .doesNotContain(ALICE_KEY);
    assertThat(alicePage.events.toString()).doesNotContain(ALICE_KEY);
  }

  @Test
  void twoSessionsOfOneUserRunOnTheirOwnModels() throws Exception {
    start();
    Person alice = fx.person("alice");
    List<ProviderConfig> seen = new CopyOnWriteArrayList<>();
    drone(alice, "ws-1", seen);
    drone(alice, "ws-2", seen);
    Page page = fx.page(alice.pageToken()).connected();
    await("drones registered", () -> fx.store.listDrones(alice.user().id()).size() == 2);
    String providerId = addProvider(page, "Mine", "openai", llm.v1().toString(), ALICE_KEY);
    String one = fx.watchedSession(page);
    String two = fx.watchedSession(page);
    chooseModel(page, one, providerId, "model-one");
    chooseModel(page, two, "default", "model-two");
    llm.enqueue(REPLY).header("Content-Type", "text/event-stream");
    llm.enqueue(REPLY).header("Content-Type", "text/event-stream");

    String t1 = submit(page, one, "prompt for one");
    String t2 = submit(page, two, "prompt for two");
    assertThat(page.completion(t1).get("status").asText()).isEqualTo("finished");
    assertThat(page.completion(t2).get("status").asText()).isEqualTo("finished");

    Map<String, LlmTestServer.Recorded> byModel = new HashMap<>();
    for (int i = 0; i < 2; i++) {
      LlmTestServer.Recorded r = llm.takeRequest();
      byModel.put(r.json().get("model").asText(), r);
    }
    assertThat(byModel.keySet()).containsExactlyInAnyOrder("model-one", "model-two");
    assertThat(byModel.get("model-one").body()).contains("prompt for one")
        .doesNotContain("prompt for two");
    assertThat(auth(byModel.get("model-one"))).isEqualTo("Bearer " + ALICE_KEY);
    assertThat(byModel.get("model-two").body()).contains("prompt for two");
    assertThat(auth(byModel.get("model-two"))).isEqualTo("Bearer " + OPERATOR_KEY);
    assertThat(fx.store.findTurn(t1).orElseThrow().model().modelId()).isEqualTo("model-one");
    assertThat(fx.store.findTurn(t2).orElseThrow().model().modelId()).isEqualTo("model-two");
    assertThat(fx.store.findTurn(t1).orElseThrow().droneId())
        .isNotEqualTo(fx.store.findTurn(t2).orElseThrow().droneId());
  }

  @Test
  void totalsAfterTenTurnsAreTheSumOfTheTurns() throws Exception {
    start();
    Person alice = fx.person("alice");
    drone(alice, "ws", new CopyOnWriteArrayList<>());
    Page page = fx.page(alice.pageToken()).connected();
    await("drone registered", () -> fx.store.listDrones(alice.user().id()).size() == 1);
    String providerId = addProvider(page, "Mine", "openai", llm.v1().toString(), null);
    Map<String, Object> priced = new HashMap<>(Map.of("id", providerId, "name", "Mine",
        "kind", "openai", "baseUrl", llm.v1().toString()));
    priced.put("prices", List.of(Map.of("modelId", "large", "inputPerMillion", -1,
        "outputPerMillion", 2)));
    assertThat(page.request(ProviderEvents.SAVE_PROVIDER, priced).path("error").asText())
        .isEqualTo("the price of large: inputPerMillion must be a price from 0 to 10000 "
            + "dollars per million tokens; got -1.0");
    priced.put("prices", List.of(Map.of("modelId", "large", "inputPerMillion", 3,
        "outputPerMillion", 15)));
    assertThat(page.request(ProviderEvents.SAVE_PROVIDER, priced).path("provider")
        .path("prices").toString()).contains("\"inputPerMillion\":3.0");
    String session = fx.watchedSession(page);
    for (int i = 0; i < 10; i++) {
      chooseModel(page, session, i < 4 ? "default" : providerId, i < 4 ? "small" : "large");
      // the priced model's replies say 1,920 of their 2,006 prompt tokens came from the cache
      llm.enqueue(i < 4 ? REPLY : Recordings.load("openai/cached-tokens.sse"))
          .header("Content-Type", "text/event-stream");
      String t = submit(page, session, "turn " + i);
      assertThat(page.completion(t).get("status").asText()).isEqualTo("finished");
    }
    List<ChatTurn> turns = fx.store.listTurns(session);
    assertThat(turns).hasSize(10).allSatisfy(t -> assertThat(t.status())
        .isEqualTo(TurnStatus.FINISHED));
    long prompt = turns.stream().mapToLong(t -> t.stats().promptTokens()).sum();
    long completion = turns.stream().mapToLong(t -> t.stats().completionTokens()).sum();
    long calls = turns.stream().mapToLong(t -> t.stats().llmCalls()).sum();
    long ms = turns.stream().mapToLong(t -> t.stats().durationMs()).sum();
    assertThat(prompt).isPositive();

    JsonNode usage = page.request(ProviderEvents.GET_USAGE, Map.of());
    JsonNode total = usage.get("total");
    assertThat(total.get("turns").asLong()).isEqualTo(10);
    assertThat(total.get("promptTokens").asLong()).isEqualTo(prompt);
    assertThat(total.get("completionTokens").asLong()).isEqualTo(completion);
    assertThat(total.get("calls").asLong()).isEqualTo(calls);
    assertThat(total.get("durationMs").asLong()).isEqualTo(ms);
    assertThat(total.get("errors").asLong()).isZero();
    List<String> models = new ArrayList<>();
    usage.get("byModel").forEach(u -> models.add(u.get("providerId").asText() + "/"
        + u.get("modelId").asText() + "=" + u.get("turns").asLong()));
    // ordered by provider id, then model
    List<String> expected = new ArrayList<>(List.of(providerId + "/large=6", "default/small=4"));
    expected.sort(null);
    assertThat(models).containsExactlyElementsOf(expected);
    long perTurnPrompt = turns.get(0).stats().promptTokens();
    // per provider too (seed 002: the drone's messages update the provider's statistics)
    Map<String, String> byProvider = new HashMap<>();
    usage.get("byProvider").forEach(u -> byProvider.put(u.get("providerId").asText(),
        u.get("turns").asLong() + " turns, " + u.get("promptTokens").asLong() + " prompt tokens"));
    assertThat(byProvider).containsOnly(
        Map.entry("default", "4 turns, " + 4 * perTurnPrompt + " prompt tokens"),
        Map.entry(providerId, "6 turns, " + (prompt - 4 * perTurnPrompt) + " prompt tokens"));
    assertThat(usage.get("byModel").get(expected.indexOf("default/small=4"))
        .get("promptTokens").asLong())
        .isEqualTo(4 * perTurnPrompt);
    // only the priced model has a cost: each large turn's tokens at $3/M in and $15/M out,
    // its cached input at OpenAI's ratio for the model (0.5: $1.50/M)
    assertThat(turns.subList(4, 10)).allSatisfy(t -> {
      assertThat(t.stats().cacheReadTokens()).isEqualTo(1920);
      assertThat(t.stats().promptTokens()).isEqualTo(2006);
    });
    assertThat(total.get("cacheReadTokens").asLong()).isEqualTo(6 * 1920);
    long cost = turns.subList(4, 10).stream().mapToLong(t -> (t.stats().promptTokens() - 1920)
        * 3_000 + 1920 * 1_500 + t.stats().completionTokens() * 15_000).sum();
    assertThat(cost).isEqualTo(6 * (86 * 3_000 + 1920 * 1_500 + 300 * 15_000));
    assertThat(usage.get("byModel").get(expected.indexOf(providerId + "/large=6"))
        .get("costNanos").asLong()).isEqualTo(cost);
    assertThat(total.get("costNanos").asLong()).isEqualTo(cost);
  }

  @Test
  void listsModelsInEachProvidersOwnFormatAndSaysWhenOneCannotBeReached() throws Exception {
    start();
    Person alice = fx.person("alice");
    Page page = fx.page(alice.pageToken()).connected();
    String ollama = addProvider(page, "Ollama", "ollama", llm.url().toString(), null);
    String openai = addProvider(page, "OpenAI", "openai", llm.v1().toString(), ALICE_KEY);
    String anthropic = addProvider(page, "Claude", "anthropic", llm.url().toString(), ALICE_KEY);
    llm.enqueue("{\"models\":[{\"name\":\"qwen3:0.6b\",\"model\":\"qwen3:0.6b\","
        + "\"size\":522653767,\"details\":{\"family\":\"qwen3\"}},"
        + "{\"name\":\"llama3.2:1b\",\"model\":\"llama3.2:1b\"}]}");
    llm.enqueueModelList("{\"object\":\"list\",\"data\":[{\"id\":\"gpt-4o-mini\",\"object\":"
        + "\"model\",\"created\":1721172741,\"owned_by\":\"system\"},{\"id\":\"o3\","
        + "\"object\":\"model\",\"owned_by\":\"system\"}]}");
    llm.enqueueModelList("{\"data\":[{\"type\":\"model\",\"id\":\"claude-sonnet-4-5\","
        + "\"display_name\":\"Claude Sonnet 4.5\",\"created_at\":\"2025-09-29T00:00:00Z\"}],"
        + "\"has_more\":false,\"first_id\":\"claude-sonnet-4-5\",\"last_id\":\"x\"}");

    JsonNode a = page.request(ProviderEvents.LIST_MODELS, Map.of("providerId", ollama));
    assertThat(a.get("models").toString()).isEqualTo("[\"llama3.2:1b\",\"qwen3:0.6b\"]");
    LlmTestServer.Recorded r = llm.takeRequest();
    assertThat(r.method() + " " + r.path()).isEqualTo("GET /api/tags");

    JsonNode b = page.request(ProviderEvents.LIST_MODELS, Map.of("providerId", openai));
    assertThat(b.get("models").toString()).isEqualTo("[\"gpt-4o-mini\",\"o3\"]");
    r = llm.takeRequest();
    assertThat(r.method() + " " + r.path()).isEqualTo("GET /v1/models");
    assertThat(auth(r)).isEqualTo("Bearer " + ALICE_KEY);

    JsonNode c = page.request(ProviderEvents.LIST_MODELS, Map.of("providerId", anthropic));
    assertThat(c.get("models").toString()).isEqualTo("[\"claude-sonnet-4-5\"]");
    r = llm.takeRequest();
    assertThat(r.path()).isEqualTo("/v1/models");
    assertThat(r.header("x-api-key")).isEqualTo(ALICE_KEY);
    assertThat(r.header("anthropic-version")).isNotNull();
    assertThat(a.toString() + b + c).doesNotContain(ALICE_KEY);

    int closedPort;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    String gone = addProvider(page, "Gone", "openai", "http://127.0.0.1:" + closedPort, ALICE_KEY);
    JsonNode err = page.request(ProviderEvents.LIST_MODELS, Map.of("providerId", gone));
    assertThat(err.get("error").asText()).isEqualTo("cannot reach Gone at http://127.0.0.1:"
        + closedPort + "/v1/models: the connection was refused or timed out");
    llm.enqueueModelList(401,
        "{\"error\":{\"message\":\"Incorrect API key provided: sk-alice\"}}");
    JsonNode denied = page.request(ProviderEvents.LIST_MODELS, Map.of("providerId", openai));
    assertThat(denied.get("error").asText()).contains("refused the API key (HTTP 401)")
        .doesNotContain(ALICE_KEY);
    llm.enqueueModelList("<html>not json</html>");
    JsonNode notList = page.request(ProviderEvents.LIST_MODELS, Map.of("providerId", openai));
    assertThat(notList.get("error").asText()).endsWith("did not answer with a model list");
    JsonNode badKind = page.request(ProviderEvents.SAVE_PROVIDER,
        Map.of("name", "x", "kind", "gemini", "baseUrl", "http://127.0.0.1:1"));
    assertThat(badKind.get("error").asText()).isEqualTo(
        "kind must be ollama, openai, openai-responses, llamacpp or anthropic");
    JsonNode badUrl = page.request(ProviderEvents.SAVE_PROVIDER,
        Map.of("name", "x", "kind", "ollama", "baseUrl", "file:///etc/passwd"));
    assertThat(badUrl.get("error").asText()).startsWith("baseUrl must be an http or https URL");
  }

  private static String filesUnder(Path dir) throws IOException {
    StringBuilder sb = new StringBuilder();
    try (var files = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        sb.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
      }
    }
    return sb.toString();
  }

  /** Writes to two streams. */
  static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public synchronized void write(int x) throws IOException {
      a.write(x);
      b.write(x);
    }

    @Override
    public synchronized void write(byte[] buf, int off, int len) throws IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }
  }
}
