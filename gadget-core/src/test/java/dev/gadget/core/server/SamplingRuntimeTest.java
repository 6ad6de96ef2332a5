package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.llm.Recordings;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ProviderEvents;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.store.JournaledChatStore;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model's sampling end to end (seed 002's temperature, topP, topK; issue 38): the operator's
 * parameters, a user's provider's and a chat's own, each value taken from the chat, else its
 * provider, else the operator, into the work order a real drone receives and the request its real
 * OpenAiClient sends to an OpenAI-compatible server on 127.0.0.1. Values out of range are refused
 * in words, and nothing is stored then.
 */
class SamplingRuntimeTest {
  static final String REPLY = Recordings.load("openai/text-with-usage.sse");
  /** The operator's parameters: sampling, and an output limit that is its own model's only. */
  static final ModelParams OPERATOR = new ModelParams(0.9, 0.5, 11, 777);

  @TempDir Path tmp;
  RuntimeFixture fx;
  LlmTestServer llm;
  final List<ProviderConfig> seen = new CopyOnWriteArrayList<>();
  Page page;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
    if (llm != null) {
      llm.close();
    }
  }

  /** A server whose default is the recording LLM server with OPERATOR's parameters; a drone. */
  private void start() throws Exception {
    llm = LlmTestServer.start();
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    fx = new RuntimeFixture(tmp, JournaledChatStore.open(tmp.resolve("store")));
    fx.server(b -> b.secretKeys(SecretKeys.of(key)).providerHosts(ProviderHosts.allowPrivate())
        .provider(new ProviderConfig("openai", llm.v1().toString(), null, "default-model",
            OPERATOR)));
    Person alice = fx.person("alice");
    GadgetDrone d = GadgetDrone.builder()
        .transport(fx.transport.client())
        .token(alice.droneToken())
        .workspaceDir(tmp.resolve("ws"))
        .hostname("test-host")
        .llmClients(p -> {
          seen.add(p);
          return OpenAiClient.builder().baseUrl(p.baseUrl()).build();
        })
        .heartbeatInterval(Duration.ofMillis(100))
        .ackTimeout(Duration.ofSeconds(2))
        .build();
    d.start();
    fx.closeables.add(d);
    page = fx.page(alice.pageToken()).connected();
    await("drone registered", () -> fx.store.listDrones(alice.user().id()).size() == 1);
  }

  /** Runs one turn; returns the params of its work order and the body the LLM server got. */
  private Turn turn(String session) throws Exception {
    seen.clear();
    llm.enqueue(REPLY).header("Content-Type", "text/event-stream");
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "hello"));
    assertThat(reply.path("error").isMissingNode()).as(reply.toString()).isTrue();
    String turnId = reply.get("turnId").asText();
    assertThat(page.completion(turnId).get("status").asText()).isEqualTo("finished");
    assertThat(seen).isNotEmpty();
    return new Turn(seen.get(seen.size() - 1).params(), llm.takeRequest().json());
  }

  record Turn(ModelParams params, JsonNode request) {}

  private JsonNode saveProvider(Map<String, Object> sampling, String id) throws Exception {
    Map<String, Object> req = new HashMap<>(Map.of("name", "Tuned", "kind", "openai",
        "baseUrl", llm.v1().toString()));
    if (id != null) {
      req.put("id", id);
    }
    if (sampling != null) {
      req.put("sampling", sampling);
    }
    return page.request(ProviderEvents.SAVE_PROVIDER, req);
  }

  private JsonNode setSampling(String session, Map<String, Object> sampling) throws Exception {
    Map<String, Object> req = new HashMap<>(Map.of("sessionId", session));
    if (sampling != null) {
      req.put("sampling", sampling);
    }
    return page.request(ProviderEvents.SET_SESSION_SAMPLING, req);
  }

  @Test
  void eachValueComesFromTheChatElseItsProviderElseTheOperatorIntoTheWorkOrder()
      throws Exception {
    start();
    String providerId = saveProvider(Map.of("temperature", 0.3), null).get("provider")
        .get("id").asText();
    String chat = fx.watchedSession(page);
    page.request(ProviderEvents.SET_SESSION_MODEL,
        Map.of("sessionId", chat, "providerId", providerId, "modelId", "tuned-model"));
    JsonNode set = setSampling(chat, Map.of("topK", 3));
    assertThat(set.get("session").get("sampling").toString()).isEqualTo("{\"topK\":3}");
    assertThat(set.get("session").get("modelId").asText()).isEqualTo("tuned-model");

    // temperature the provider's, topP the operator's, topK the chat's; no output limit: the
    // operator's is its own model's
    Turn t = turn(chat);
    assertThat(t.params()).isEqualTo(new ModelParams(0.3, 0.5, 3, null));
    assertThat(t.request().get("model").asText()).isEqualTo("tuned-model");
    assertThat(t.request().get("temperature").asDouble()).isEqualTo(0.3);
    assertThat(t.request().get("top_p").asDouble()).isEqualTo(0.5);

    // the chat's whole sampling is replaced: its temperature now, the operator's topK again
    setSampling(chat, Map.of("temperature", 1.1));
    t = turn(chat);
    assertThat(t.params()).isEqualTo(new ModelParams(1.1, 0.5, 11, null));
    assertThat(t.request().get("temperature").asDouble()).isEqualTo(1.1);

    // on the server's default provider: the operator's parameters, the chat's values first
    String other = fx.watchedSession(page);
    assertThat(turn(other).params()).isEqualTo(OPERATOR);
    setSampling(other, Map.of("topP", 0.25));
    t = turn(other);
    assertThat(t.params()).isEqualTo(new ModelParams(0.9, 0.25, 11, 777));
    assertThat(t.request().get("top_p").asDouble()).isEqualTo(0.25);
    assertThat(t.request().get("model").asText()).isEqualTo("default-model");

    // cleared: the provider's and the operator's again
    setSampling(chat, null);
    assertThat(fx.store.findSession(chat).orElseThrow().sampling()).isNull();
    assertThat(turn(chat).params()).isEqualTo(new ModelParams(0.3, 0.5, 11, null));
  }

  @Test
  void aModelsContextWindowSetInThePageReachesItsWorkOrderAndTheTurnsBudget() throws Exception {
    start();
    Map<String, Object> req = new HashMap<>(Map.of("name", "Sized", "kind", "openai",
        "baseUrl", llm.v1().toString(), "contextWindows",
        List.of(Map.of("modelId", "sized-model", "tokens", 20_000))));
    JsonNode saved = page.request(ProviderEvents.SAVE_PROVIDER, req).get("provider");
    assertThat(saved.get("contextWindows").toString()).isEqualTo("{\"sized-model\":20000}");
    String id = saved.get("id").asText();
    String chat = fx.watchedSession(page);
    page.request(ProviderEvents.SET_SESSION_MODEL,
        Map.of("sessionId", chat, "providerId", id, "modelId", "sized-model"));
    assertThat(turn(chat).params().contextWindow()).isEqualTo(20_000);
    // a window of 20,000 less the reply's reserve (a quarter, at most 8,192)
    assertThat(fx.store.listTurns(chat).get(0).stats().contextBudget()).isEqualTo(15_000);

    // edited without: kept; another model of the provider: the provider's own (none here)
    JsonNode edited = saveProvider(null, id).get("provider");
    assertThat(edited.get("contextWindows").get("sized-model").asInt()).isEqualTo(20_000);
    page.request(ProviderEvents.SET_SESSION_MODEL,
        Map.of("sessionId", chat, "providerId", id, "modelId", "other-model"));
    assertThat(turn(chat).params().contextWindow()).isNull();

    req.put("id", id);
    req.put("contextWindows", List.of(Map.of("modelId", "sized-model", "tokens", 100)));
    assertThat(page.request(ProviderEvents.SAVE_PROVIDER, req).get("error").asText())
        .isEqualTo("the context window of sized-model must be at least 1024 tokens; got 100");
  }

  @Test
  void aProviderShowsItsSamplingKeepsItWhenEditedWithoutAndOneOutOfRangeIsRefusedInWords()
      throws Exception {
    start();
    JsonNode saved = saveProvider(Map.of("temperature", 0.3, "topP", 0.8, "topK", 40), null);
    String id = saved.get("provider").get("id").asText();
    assertThat(saved.get("provider").get("sampling").toString())
        .isEqualTo("{\"temperature\":0.3,\"topP\":0.8,\"topK\":40}");
    JsonNode listed = page.request(ProviderEvents.LIST_PROVIDERS, Map.of()).get("providers");
    assertThat(listed.get(0).get("sampling").toString()) // the server's default: the operator's
        .isEqualTo("{\"temperature\":0.9,\"topP\":0.5,\"topK\":11}");
    assertThat(listed.get(1).get("sampling").get("topK").asInt()).isEqualTo(40);

    // edited without sampling keeps it; an empty one removes it
    saveProvider(null, id);
    assertThat(fx.store.providers().findProvider(id).orElseThrow().sampling())
        .isEqualTo(new Sampling(0.3, 0.8, 40));

    Map<Map<String, Object>, String> refused = Map.of(
        Map.of("temperature", 3), "temperature must be a number from 0 to 2; got 3.0",
        Map.of("temperature", -0.1), "temperature must be a number from 0 to 2; got -0.1",
        Map.of("topP", 0), "topP must be a number above 0 and at most 1; got 0.0",
        Map.of("topP", 1.5), "topP must be a number above 0 and at most 1; got 1.5",
        Map.of("topK", 0), "topK must be a whole number, 1 or more; got 0",
        Map.of("topK", 2.5), "\"sampling.topK\" must be a whole number; got 2.5",
        Map.of("temperature", "hot"), "\"sampling.temperature\" must be a number; got \"hot\"");
    String chat = fx.watchedSession(page);
    for (Map.Entry<Map<String, Object>, String> bad : refused.entrySet()) {
      // a wrong type is refused with the others of its payload, naming the event
      boolean type = bad.getValue().startsWith("\"");
      assertThat(saveProvider(bad.getKey(), id).path("error").asText()).as(bad.toString())
          .isEqualTo((type ? "bad saveProvider payload: " : "") + bad.getValue());
      assertThat(setSampling(chat, bad.getKey()).path("error").asText()).as(bad.toString())
          .isEqualTo((type ? "bad setSessionSampling payload: " : "") + bad.getValue());
    }
    assertThat(saveProvider(Map.of("temperature", 3), null).path("error").asText())
        .startsWith("temperature must be");
    // nothing was stored by a refusal
    assertThat(fx.store.providers().findProvider(id).orElseThrow().sampling())
        .isEqualTo(new Sampling(0.3, 0.8, 40));
    assertThat(fx.store.providers().listProviders(fx.store.findSession(chat).orElseThrow()
        .userId())).hasSize(1);
    assertThat(fx.store.findSession(chat).orElseThrow().sampling()).isNull();

    assertThat(saveProvider(Map.of(), id).get("provider").has("sampling")).isFalse();
    assertThat(fx.store.providers().findProvider(id).orElseThrow().sampling()).isNull();
    // someone else's chat, or none, is not found
    assertThat(setSampling("nope", Map.of("topK", 1)).path("error").asText())
        .contains("not found");
  }
}
