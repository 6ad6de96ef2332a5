package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.Recordings;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Sampling;
import dev.gadget.core.model.TurnModel;
import dev.gadget.core.model.TurnStats;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The provider settings and the model picker in headless Chromium: the user adds an
 * OpenAI-compatible provider with a key (a real HTTP server on 127.0.0.1 speaking the real
 * formats), picks one of the models it lists, and sends a prompt, which the drone's real
 * OpenAiClient sends there with that model and key; and sets the provider's and the chat's
 * sampling, which that request carries; and the chat's tool deferral, refused in words then set.
 */
class BrowserProvidersTest extends BrowserTestBase {
  static final String KEY = "sk-browser-test-key-0123456789";

  LlmTestServer llm;

  @AfterEach
  void closeLlm() {
    if (llm != null) {
      llm.close();
    }
  }

  @Test
  void addsAProviderPicksAModelAndSendsAPrompt() throws Exception {
    llm = LlmTestServer.start();
    llm.enqueueModelList("{\"object\":\"list\",\"data\":[{\"id\":\"browser-model\","
        + "\"object\":\"model\",\"owned_by\":\"me\"},{\"id\":\"other-model\","
        + "\"object\":\"model\"}]}");
    llm.enqueue(Recordings.load("openai/text-with-usage.sse"))
        .header("Content-Type", "text/event-stream");
    fx = new PageFixture(tmp, ScriptedLlmClient.of(), true);

    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", "provider");
    c.put("providerName", "My endpoint");
    c.put("baseUrl", llm.v1().toString());
    c.put("apiKey", KEY);
    c.put("model", "browser-model");
    c.put("price", "other-model 1 1; browser-model 2 8");
    c.put("prompt", "Say hello");
    c.put("timeoutMs", 30000);
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("listed").toString()).contains("My endpoint", "openai", "key set")
        .doesNotContain(KEY);
    assertThat(r.get("models").toString()).isEqualTo("[\"browser-model\",\"other-model\"]");
    assertThat(r.get("keyInPage").asBoolean()).isFalse();
    assertThat(r.get("blocks").toString()).contains("Grüße, 世界 🌍!");
    assertThat(r.get("usage").toString()).contains("My endpoint · browser-model", "Total");

    LlmTestServer.Recorded list = llm.takeRequest();
    assertThat(list.method() + " " + list.path()).isEqualTo("GET /v1/models");
    LlmTestServer.Recorded chat = llm.takeRequest();
    assertThat(chat.path()).isEqualTo("/v1/chat/completions");
    assertThat(chat.json().get("model").asText()).isEqualTo("browser-model");
    assertThat(chat.header("Authorization")).isEqualTo("Bearer " + KEY);

    List<ChatTurn> turns = fx.store.store().listTurns(fx.session.id());
    assertThat(turns).singleElement().satisfies(t -> assertThat(t.model()).isEqualTo(
        new TurnModel(r.get("providerId").asText(), "My endpoint", "browser-model")));
    // the price set in the page costs the turn: $2/M prompt tokens, $8/M completion tokens
    TurnStats stats = turns.get(0).stats();
    assertThat(stats.promptTokens()).isPositive();
    double dollars = (stats.promptTokens() * 2.0 + stats.completionTokens() * 8.0) / 1e6;
    assertThat(r.get("usage").toString())
        .contains(String.format(Locale.ROOT, "$%.6f", dollars)); // less than a cent: 6 places
    fx.close();
    fx = null;
    try (Stream<Path> files = Files.walk(tmp)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1))
            .as("file %s", f).doesNotContain(KEY);
      }
    }
  }

  @Test
  void setsSamplingAndAContextWindowOnAProviderAndOnAChatAndTheModelsRequestCarriesEachValue()
      throws Exception {
    llm = LlmTestServer.start();
    llm.enqueueModelList(
        "{\"object\":\"list\",\"data\":[{\"id\":\"browser-model\",\"object\":\"model\"}]}");
    llm.enqueue(Recordings.load("openai/text-with-usage.sse"))
        .header("Content-Type", "text/event-stream");
    fx = new PageFixture(tmp, ScriptedLlmClient.of(), true);

    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", "sampling");
    c.put("providerName", "Tuned");
    c.put("baseUrl", llm.v1().toString());
    c.put("providerTemperature", "0.3");
    c.put("providerTopK", "40");
    c.put("contextWindows", "browser-model 20000");
    c.put("model", "browser-model");
    c.put("chatTopP", "0.6");
    c.put("prompt", "Say hello");
    c.put("width", 1280);
    c.put("height", 800);
    c.put("timeoutMs", 30000);
    Files.createDirectories(BrowserUxTest.SHOTS);
    c.put("shot", BrowserUxTest.SHOTS.resolve("sampling-1280x800.png").toString());
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("formAfterSave").asText()).isEmpty(); // the form was reset
    assertThat(r.get("edited").toString()).isEqualTo("[\"0.3\",\"\",\"40\"]");
    assertThat(r.get("editedWindows").asText()).isEqualTo("browser-model 20000");
    // what the chat inherits: the provider's temperature and top-k; the server sets no top-p
    assertThat(r.get("inherited").get("placeholders").toString())
        .isEqualTo("[\"temperature 0.3\",\"top-p\",\"top-k 40\"]");
    assertThat(r.get("refused").get("error").asText())
        .isEqualTo("temperature must be a number from 0 to 2; got 5.0");
    assertThat(r.get("chat").get("saved").asText()).isEqualTo("{\"topP\":0.6}");
    assertThat(r.get("deferralRefused").get("error").asText())
        .isEqualTo("tool deferral is always, never, auto or a share of the context budget such "
            + "as 10% or 0.1; got \"sometimes\"");
    assertThat(r.get("deferralSet").get("error").asText()).isEmpty();
    assertThat(r.get("oneRow").asBoolean()).as("the chat's fields beside its model at 1280x800")
        .isTrue();

    String providerId = r.get("providerId").asText();
    assertThat(fx.store.store().providers().findProvider(providerId).orElseThrow().sampling())
        .isEqualTo(new Sampling(0.3, null, 40));
    assertThat(fx.store.store().providers().findProvider(providerId).orElseThrow()
        .contextWindows()).isEqualTo(Map.of("browser-model", 20_000));
    // the model's window set in the page is the turn's: 20,000 less a quarter for the reply
    assertThat(fx.store.store().listTurns(fx.session.id())).singleElement()
        .satisfies(t -> assertThat(t.stats().contextBudget()).isEqualTo(15_000));
    assertThat(fx.store.store().findSession(fx.session.id()).orElseThrow().sampling())
        .isEqualTo(new Sampling(null, 0.6, null));
    assertThat(fx.store.store().findSession(fx.session.id()).orElseThrow().toolDeferral())
        .isEqualTo("always");
    llm.takeRequest(); // the model list
    LlmTestServer.Recorded chat = llm.takeRequest();
    assertThat(chat.path()).isEqualTo("/v1/chat/completions");
    assertThat(chat.json().get("temperature").asDouble()).isEqualTo(0.3);
    assertThat(chat.json().get("top_p").asDouble()).isEqualTo(0.6);
  }
}
