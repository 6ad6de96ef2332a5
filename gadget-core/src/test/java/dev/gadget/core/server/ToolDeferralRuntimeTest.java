package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.LlmTestServer;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.llm.Recordings;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ProviderEvents;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.store.JournaledChatStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A chat's own tool deferral end to end (issue 33, "configurable per loop, per drone and per
 * chat"): set in the page with {@code setSessionToolDeferral}, stored with the chat, carried by
 * the work order to a real drone, whose real OpenAiClient then offers the model the tools that
 * setting says, on an OpenAI-compatible server on 127.0.0.1. Unset, the drone's setting decides.
 */
class ToolDeferralRuntimeTest {
  static final String REPLY = Recordings.load("openai/text-with-usage.sse");

  @TempDir Path tmp;
  RuntimeFixture fx;
  LlmTestServer llm;
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

  /** A tool that is not a coding tool, so that it can be deferred. */
  static Tool weather() {
    return new Tool() {
      @Override public String name() { return "weather_forecast"; }
      @Override public String description() { return "Tomorrow's weather in a city"; }
      @Override public JsonNode parameters() {
        return new ObjectMapper().createObjectNode().put("type", "object");
      }
      @Override public ToolResult execute(JsonNode arguments, ToolContext context) {
        return ToolResult.ok("sunny");
      }
    };
  }

  /** A server whose default provider is the recording LLM server; a drone deferring as said. */
  private void start(ToolDeferral droneDeferral) throws Exception {
    llm = LlmTestServer.start();
    fx = new RuntimeFixture(tmp, JournaledChatStore.open(tmp.resolve("store")));
    fx.server(b -> b.providerHosts(ProviderHosts.allowPrivate())
        .provider(new ProviderConfig("openai", llm.v1().toString(), null, "default-model",
            new ModelParams(null, null, null))));
    Person alice = fx.person("alice");
    List<Tool> tools = new ArrayList<>(CodingTools.all());
    tools.add(weather());
    GadgetDrone d = GadgetDrone.builder()
        .transport(fx.transport.client())
        .token(alice.droneToken())
        .workspaceDir(tmp.resolve("ws"))
        .hostname("test-host")
        .tools(tools)
        .toolDeferral(droneDeferral)
        .llmClients(p -> OpenAiClient.builder().baseUrl(p.baseUrl()).build())
        .heartbeatInterval(Duration.ofMillis(100))
        .ackTimeout(Duration.ofSeconds(2))
        .build();
    d.start();
    fx.closeables.add(d);
    page = fx.page(alice.pageToken()).connected();
    await("drone registered", () -> fx.store.listDrones(alice.user().id()).size() == 1);
  }

  /** Runs one turn; the names of the tools its request to the model offered. */
  private List<String> offered(String session) throws Exception {
    llm.enqueue(REPLY).header("Content-Type", "text/event-stream");
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "hello"));
    assertThat(reply.path("error").isMissingNode()).as(reply.toString()).isTrue();
    assertThat(page.completion(reply.get("turnId").asText()).get("status").asText())
        .isEqualTo("finished");
    List<String> names = new ArrayList<>();
    for (JsonNode t : llm.takeRequest().json().path("tools")) {
      names.add(t.get("function").get("name").asText());
    }
    return names;
  }

  private JsonNode set(String session, String deferral) throws Exception {
    Map<String, Object> req = new HashMap<>(Map.of("sessionId", session));
    if (deferral != null) {
      req.put("toolDeferral", deferral);
    }
    return page.request(ProviderEvents.SET_SESSION_TOOL_DEFERRAL, req);
  }

  @Test
  void aChatsSettingReachesTheDroneAndDecidesWhichToolsTheModelIsOffered() throws Exception {
    start(ToolDeferral.DEFAULT); // eight small tools: far under 10% of the budget
    String chat = fx.watchedSession(page);
    assertThat(offered(chat)).contains("weather_forecast").doesNotContain("search_tools");

    JsonNode set = set(chat, " Always ");
    assertThat(set.get("session").get("toolDeferral").asText()).isEqualTo("always");
    assertThat(fx.store.findSession(chat).orElseThrow().toolDeferral()).isEqualTo("always");
    List<String> deferred = offered(chat);
    assertThat(deferred).contains("search_tools", "read_file")
        .doesNotContain("weather_forecast");

    // a share of the budget; 0% defers whatever the tools measure
    assertThat(set(chat, "0.0").get("session").get("toolDeferral").asText()).isEqualTo("0%");
    assertThat(offered(chat)).contains("search_tools").doesNotContain("weather_forecast");

    // cleared: the drone's setting again
    assertThat(set(chat, "").get("session").has("toolDeferral")).isFalse();
    assertThat(fx.store.findSession(chat).orElseThrow().toolDeferral()).isNull();
    assertThat(offered(chat)).contains("weather_forecast").doesNotContain("search_tools");
  }

  @Test
  void neverOverridesADroneThatAlwaysDefersAndNonsenseIsRefusedInWords() throws Exception {
    start(ToolDeferral.ALWAYS);
    String chat = fx.watchedSession(page);
    assertThat(offered(chat)).contains("search_tools").doesNotContain("weather_forecast");

    set(chat, "never");
    assertThat(offered(chat)).contains("weather_forecast").doesNotContain("search_tools");

    assertThat(set(chat, "sometimes").get("error").asText())
        .isEqualTo("tool deferral is always, never, auto or a share of the context budget such "
            + "as 10% or 0.1; got \"sometimes\"");
    assertThat(set(chat, "150%").get("error").asText())
        .isEqualTo("the share of the context budget for tool definitions must be from 0 to 1 "
            + "(10% is 0.1); got 1.5");
    assertThat(fx.store.findSession(chat).orElseThrow().toolDeferral()).isEqualTo("never");
    assertThat(set("no-such-chat", "auto").get("error").asText()).isNotBlank();
  }
}
