package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.RecordingListener;
import dev.gadget.core.llm.Recordings;
import dev.gadget.core.model.ProviderConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which LLM the demo and the server choose, from options, the environment and a probe. */
class ProvidersTest {
  static final String KEY = "sk-live-0123456789abcdef";
  HttpServer ollama;

  @AfterEach
  void stop() {
    if (ollama != null) {
      ollama.stop(0);
    }
  }

  static Console console(Map<String, String> env) {
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    return new Console(sink, sink, env);
  }

  static Args args(String... argv) {
    return Args.parse(Providers.OPTIONS, List.of(argv));
  }

  /** A fake Ollama answering /api/tags with {@code body}; returns its base URL. */
  String fakeOllama(String body) throws Exception {
    ollama = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    ollama.createContext("/api/tags", ex -> {
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    ollama.start();
    return "http://127.0.0.1:" + ollama.getAddress().getPort();
  }

  static String nothingListening() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return "http://127.0.0.1:" + s.getLocalPort();
    }
  }

  @Test
  void theDemoUsesOllamaWhenItAnswersWithItsFirstChatModel() throws Exception {
    String url = fakeOllama(
        "{\"models\":[{\"name\":\"nomic-embed-text:latest\"},{\"name\":\"llama3.2:3b\"}]}");
    Providers.Choice c = Providers.forDemo(args(), console(Map.of()), url);
    assertThat(c.scripted()).isFalse();
    assertThat(c.config().sdk()).isEqualTo("ollama");
    assertThat(c.config().baseUrl()).isEqualTo(url);
    assertThat(c.config().modelId()).isEqualTo("llama3.2:3b");
    assertThat(Providers.forDemo(args("--model", "qwen3:8b"), console(Map.of()), url)
        .config().modelId()).isEqualTo("qwen3:8b");
  }

  @Test
  void theDemoIsScriptedAndSaysSoWhenNoModelIsThere() throws Exception {
    Providers.Choice none = Providers.forDemo(args(), console(Map.of()), nothingListening());
    assertThat(none.scripted()).isTrue();
    assertThat(none.config().sdk()).isEqualTo("scripted");
    assertThat(none.description()).startsWith("SCRIPTED replies: no LLM is configured")
        .contains("canned");
    String empty = fakeOllama("{\"models\":[]}");
    Providers.Choice noModel = Providers.forDemo(args(), console(Map.of()), empty);
    assertThat(noModel.scripted()).isTrue();
    assertThat(noModel.description()).contains("has no model installed", "ollama pull");
  }

  @Test
  void theDemoPrefersAnOpenAiCompatibleEndpointWhenOneIsGiven() throws Exception {
    String url = fakeOllama("{\"models\":[{\"name\":\"llama3.2:3b\"}]}");
    Providers.Choice key = Providers.forDemo(args(), console(Map.of("OPENAI_API_KEY", KEY)),
        url);
    assertThat(key.config().sdk()).isEqualTo("openai");
    assertThat(key.config().baseUrl()).isEqualTo(Providers.DEFAULT_OPENAI_URL);
    assertThat(key.config().apiKey()).isEqualTo(KEY);
    assertThat(key.config().modelId()).isEqualTo(Providers.DEFAULT_OPENAI_MODEL);
    assertThat(key.description() + key.config()).doesNotContain(KEY);

    Providers.Choice local = Providers.forDemo(
        args("--base-url", "http://127.0.0.1:8000/v1", "--model", "qwen"), console(Map.of()),
        url);
    assertThat(local.config().sdk()).isEqualTo("openai");
    assertThat(local.config().apiKey()).isNull();
    assertThat(local.description()).contains("http://127.0.0.1:8000/v1", "qwen", "no API key");

    assertThat(Providers.forDemo(args("--llm", "scripted"),
        console(Map.of("OPENAI_API_KEY", KEY)), url).scripted()).isTrue();
  }

  @Test
  void theServerIsExplicit() {
    Providers.Choice d = Providers.forServer(args(), console(Map.of()));
    assertThat(d.config().sdk()).isEqualTo("ollama");
    assertThat(d.config().baseUrl()).isEqualTo(Providers.DEFAULT_OLLAMA_URL);
    assertThat(d.config().modelId()).isEqualTo(Providers.DEFAULT_OLLAMA_MODEL);
    Providers.Choice o = Providers.forServer(args("--base-url", "https://llm.example/v1"),
        console(Map.of("GADGET_LLM_API_KEY", KEY)));
    assertThat(o.config().sdk()).isEqualTo("openai");
    assertThat(o.config().apiKey()).isEqualTo(KEY);
    assertThatThrownBy(() -> Providers.forServer(args("--llm", "gpt"), console(Map.of())))
        .isInstanceOf(UsageException.class)
        .hasMessage("--llm must be ollama, openai, openai-responses, llamacpp, anthropic or "
            + "scripted, not 'gpt'");
  }

  @Test
  void theServersSamplingParametersGoIntoItsWorkOrdersAndBadOnesAreRefusedInWords() {
    Providers.Choice c = Providers.forServer(args("--llm", "anthropic", "--temperature", "0.2",
        "--top-p", "0.9", "--top-k", "40"), console(Map.of()));
    assertThat(c.config().params().temperature()).isEqualTo(0.2);
    assertThat(c.config().params().topP()).isEqualTo(0.9);
    assertThat(c.config().params().topK()).isEqualTo(40);
    assertThat(Providers.forServer(args(), console(Map.of())).config().params())
        .isEqualTo(dev.gadget.core.model.ModelParams.DEFAULTS);
    Map<List<String>, String> bad = Map.of(
        List.of("--temperature", "3"), "--temperature takes a number from 0 to 2; not '3'",
        List.of("--top-p", "0"), "--top-p takes a number above 0 to 1; not '0'",
        List.of("--top-k", "2.5"), "--top-k takes a whole number, 1 or more; not '2.5'",
        List.of("--top-k", "none"), "--top-k takes a number from 1 up; not 'none'");
    bad.forEach((argv, said) -> assertThatThrownBy(() -> Providers.forServer(
        args(argv.toArray(String[]::new)), console(Map.of())))
        .isInstanceOf(UsageException.class).hasMessage(said));
  }

  @Test
  void theDroneMakesOneClientPerProvider() {
    LlmClients clients = new LlmClients();
    var ollama = clients.apply(Providers.forServer(args(), console(Map.of())).config());
    assertThat(ollama).isInstanceOf(dev.gadget.core.llm.OllamaClient.class)
        .isSameAs(clients.apply(Providers.forServer(args(), console(Map.of())).config()));
    assertThat(clients.apply(Providers.forServer(args("--llm", "openai"), console(Map.of()))
        .config())).isInstanceOf(dev.gadget.core.llm.OpenAiClient.class);
    assertThat(clients.apply(Providers.SCRIPTED))
        .isInstanceOf(dev.gadget.core.llm.ScriptedLlmClient.class);
    assertThat(clients.apply(Providers.forServer(args("--llm", "anthropic"), console(Map.of()))
        .config())).isInstanceOf(dev.gadget.core.llm.AnthropicClient.class);
    assertThatThrownBy(() -> clients.apply(new dev.gadget.core.model.ProviderConfig("gemini",
        "https://x", null, "m", null)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no client for the LLM sdk 'gemini'");
  }

  @Test
  void openAisReasoningModelsGoThroughTheResponsesApiAndOnlyOnOpenAisOwnHost() {
    LlmClients clients = new LlmClients();
    String openAi = Providers.DEFAULT_OPENAI_URL;
    Providers.Choice gpt5 = Providers.forServer(args("--llm", "openai", "--model", "gpt-5"),
        console(Map.of()));
    assertThat(gpt5.description()).startsWith("OpenAI Responses API at " + openAi);
    assertThat(clients.apply(gpt5.config()))
        .isInstanceOf(dev.gadget.core.llm.OpenAiResponsesClient.class);
    assertThat(clients.apply(new ProviderConfig("openai", openAi, null, "o4-mini", null)))
        .isInstanceOf(dev.gadget.core.llm.OpenAiResponsesClient.class);
    assertThat(clients.apply(new ProviderConfig("openai", openAi, null, "gpt-4.1", null)))
        .isInstanceOf(dev.gadget.core.llm.OpenAiClient.class);
    assertThat(clients.apply(new ProviderConfig("openai", "https://openrouter.ai/api/v1", null,
        "openai/gpt-5", null))).as("another host may not have /responses")
        .isInstanceOf(dev.gadget.core.llm.OpenAiClient.class);
    assertThat(clients.apply(new ProviderConfig("openai-responses", "http://127.0.0.1:1/v1",
        null, "llama3", null))).isInstanceOf(dev.gadget.core.llm.OpenAiResponsesClient.class);
    assertThat(Providers.apiKey("openai-responses", Map.of("OPENAI_API_KEY", "sk-o")::get))
        .isEqualTo("sk-o");
  }

  @Test
  void contextWindowGoesIntoTheProvidersParamsOrFixesTheDronesClients() {
    assertThat(Providers.forServer(args("--llm", "openai", "--context-window", "32768"),
        console(Map.of())).config().params().contextWindow()).isEqualTo(32768);
    assertThat(Providers.forServer(args("--llm", "openai"), console(Map.of())).config()
        .params().contextWindow()).isNull();
    for (String bad : List.of("512", "8k", "40000.5")) {
      assertThatThrownBy(() -> Providers.forServer(args("--context-window", bad),
          console(Map.of()))).isInstanceOf(UsageException.class)
          .hasMessageStartingWith("--context-window takes a ").hasMessageEndingWith(
              "not '" + bad + "'");
    }
    try (LlmTestServer server = LlmTestServer.start()) {
      ProviderConfig local = new ProviderConfig("openai", server.v1().toString(), null,
          "gpt-4o-mini", null);
      assertThat(new LlmClients().apply(local).contextWindow("gpt-4o-mini"))
          .as("the published window").hasValue(128_000);
      var fixed = new LlmClients().withContextWindow(20_000).apply(local);
      assertThat(fixed.contextWindow("gpt-4o-mini")).hasValue(20_000);
      assertThat(fixed.maxTools()).isEqualTo(dev.gadget.core.llm.OpenAiClient.MAX_TOOLS);
      server.enqueue(Recordings.load("openai/text-with-usage.sse"));
      RecordingListener l = new RecordingListener();
      fixed.stream(new LlmRequest("gpt-4o-mini", List.of(LlmMessage.user("hi")), null, null,
          null), l);
      assertThat(l.assertContract().completed().text()).isNotEmpty();
      assertThat(server.takeRequest().path()).isEqualTo("/v1/chat/completions");
    }
  }

  @Test
  void anthropicTakesItsKeyFromAnthropicApiKeyOrGadgetLlmApiKey() {
    Providers.Choice own = Providers.forServer(args("--llm", "anthropic"),
        console(Map.of("ANTHROPIC_API_KEY", KEY, "OPENAI_API_KEY", "sk-openai-other")));
    assertThat(own.config().sdk()).isEqualTo("anthropic");
    assertThat(own.config().baseUrl()).isEqualTo("https://api.anthropic.com");
    assertThat(own.config().modelId()).isEqualTo(Providers.DEFAULT_ANTHROPIC_MODEL);
    assertThat(own.config().apiKey()).isEqualTo(KEY);
    assertThat(own.description() + own.config()).doesNotContain(KEY);
    assertThat(Providers.forServer(args("--llm", "anthropic", "--model", "claude-opus-4-1"),
        console(Map.of("GADGET_LLM_API_KEY", KEY, "ANTHROPIC_API_KEY", "sk-ant-other")))
        .config()).satisfies(c -> {
          assertThat(c.apiKey()).isEqualTo(KEY);
          assertThat(c.modelId()).isEqualTo("claude-opus-4-1");
        });
    Providers.Choice none = Providers.forServer(args("--llm", "anthropic"),
        console(Map.of("OPENAI_API_KEY", "sk-openai-other")));
    assertThat(none.config().apiKey()).as("another provider's key is never used").isNull();
    assertThat(none.description()).contains("no API key", "ANTHROPIC_API_KEY");
  }

  @Test
  void theDemoUsesAnthropicWhenOnlyItsKeyIsThere() throws Exception {
    Providers.Choice c = Providers.forDemo(args(), console(Map.of("ANTHROPIC_API_KEY", KEY)),
        nothingListening());
    assertThat(c.scripted()).isFalse();
    assertThat(c.config().sdk()).isEqualTo("anthropic");
    assertThat(c.config().apiKey()).isEqualTo(KEY);
  }

  @Test
  void aDroneSendsItsOwnKeysOnlyToTheProviderTheyAreFor() {
    LlmClients clients = LlmClients.withOwnKeys(Map.of("OPENAI_API_KEY", "sk-openai-1",
        "ANTHROPIC_API_KEY", "sk-ant-1")::get);
    try (LlmTestServer server = LlmTestServer.start()) {
      server.enqueue(Recordings.load("anthropic/text.sse"));
      server.enqueue(Recordings.load("ollama/metrics-missing.ndjson"));
      String url = server.url().toString();
      for (String sdk : List.of("anthropic", "ollama")) {
        RecordingListener l = new RecordingListener();
        clients.apply(new ProviderConfig(sdk, url, null, "m", null))
            .stream(new LlmRequest("m", List.of(LlmMessage.user("hi")), null, null, null), l);
        l.assertContract().completed();
      }
      LlmTestServer.Recorded anthropic = server.takeRequest();
      assertThat(anthropic.header("x-api-key")).isEqualTo("sk-ant-1");
      assertThat(anthropic.json().at("/thinking/budget_tokens").asInt())
          .isEqualTo(LlmClients.ANTHROPIC_THINKING_BUDGET);
      LlmTestServer.Recorded ollama = server.takeRequest();
      assertThat(ollama.header("Authorization")).as("no key is sent to Ollama").isNull();
    }
    assertThat(Providers.apiKey("ollama", Map.of("OPENAI_API_KEY", "sk-openai-1")::get))
        .isNull();
    assertThat(Providers.apiKey("openai", Map.of("OPENAI_API_KEY", "sk-openai-1")::get))
        .isEqualTo("sk-openai-1");
    assertThat(Providers.apiKey("anthropic", Map.of("OPENAI_API_KEY", "sk-openai-1")::get))
        .isNull();
  }

  @Test
  void aLlamaCppProviderKeepsEachChatOnItsOwnSlotAndAnOpenAiOneSendsNoLlamaCppField() {
    LlmClients clients = new LlmClients();
    Providers.Choice llama = Providers.forServer(args("--llm", "llamacpp"), console(Map.of()));
    assertThat(llama.config().baseUrl()).isEqualTo(Providers.DEFAULT_LLAMACPP_URL);
    try (LlmTestServer server = LlmTestServer.start()) {
      String url = server.v1().toString();
      var client = clients.apply(new ProviderConfig("llamacpp", url, null, "m", null));
      server.enqueue("{\"total_slots\":4,\"default_generation_settings\":{\"n_ctx\":4096}}");
      assertThat(client.contextWindow("m")).hasValue(4096);
      assertThat(server.takeRequest().path()).isEqualTo("/props");
      for (String sdk : List.of("llamacpp", "openai")) {
        server.enqueue(Recordings.load("openai/llamacpp-timings.sse"));
        RecordingListener l = new RecordingListener();
        clients.apply(new ProviderConfig(sdk, url, null, "m", null)).stream(
            LlmRequest.builder("m", List.of(LlmMessage.user("hi"))).cacheKey("gadget-k").build(),
            l);
        assertThat(l.assertContract().completed().usage().cacheReadTokens()).isEqualTo(1187);
      }
      var sent = server.takeRequest().json();
      assertThat(sent.get("cache_prompt").asBoolean()).isTrue();
      assertThat(sent.get("id_slot").asInt()).isZero();
      var plain = server.takeRequest().json();
      assertThat(plain.has("cache_prompt") || plain.has("id_slot")
          || plain.has("prompt_cache_key")).isFalse();
    }
  }
}
