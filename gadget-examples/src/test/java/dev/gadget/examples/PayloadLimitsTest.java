package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Limits;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad payloads and the prompt limit over the whole stack: the jar's server with its embedded
 * store and a drone, and either a page client on the real WebSocket transport or the page in
 * headless Chromium. Every bad request is answered in people's words on the same connection; the
 * largest prompt the limit allows, in its worst case for size, fits the transport's frame and
 * runs; and the page refuses a longer one itself, with a message, keeping its connection.
 */
class PayloadLimitsTest {
  static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path tmp;
  PageFixture fx;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  private static JsonNode ask(Connection c, String event, Object payload) throws Exception {
    return c.emitWithAck(event, List.of(GadgetJson.mapper().valueToTree(payload)), WAIT)
        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).get(0);
  }

  @Test
  void badRequestsAreAnsweredAndTheLargestPromptRuns() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.builder()
        .script(r -> ScriptedLlmClient.reply().text("Read it all.").build()).build(), true);
    List<String> drops = new CopyOnWriteArrayList<>();
    try (WebSocketTransportClient client = WebSocketTransportClient.builder()
        .uri(fx.app.socketUri()).build()) {
      Connection c = client.connect(Protocol.PAGE_NAMESPACE,
          () -> GadgetJson.mapper().createObjectNode().put("token", fx.user.pageToken()),
          new TransportClient.ClientListener() {
            @Override
            public void onDisconnect(Connection connection, String reason,
                boolean willReconnect) {
              drops.add(reason);
            }
          });
      String session = fx.session.id();

      assertThat(ask(c, Protocol.SUBMIT_PROMPT, Map.of("sessionId", session,
          "prompt", "p".repeat(100_001))).path("error").asText())
          .isEqualTo("bad submitPrompt payload: \"prompt\" must be at most 100,000 characters; "
              + "got 100,001");
      assertThat(ask(c, Protocol.REQUEST_WORKSPACE_MODE, Map.of("droneId", "d", "mode", true))
          .path("error").asText()).isEqualTo("bad requestWorkspaceMode payload: \"mode\" must be "
              + "one of \"idle\", \"user\", \"agent\"; got true");
      assertThat(ask(c, Protocol.UNWATCH_SESSION, Map.of()).path("error").asText())
          .isEqualTo("bad unwatchSession payload: \"sessionId\" is required");
      assertThat(ask(c, Protocol.CREATE_PROJECT, Map.of("name", "n", "slug", "s".repeat(100_000),
          "gitUrl", "/git/x")).path("error").asText())
          .isEqualTo("bad createProject payload: \"slug\" must be at most 100 characters; "
              + "got 100,000");
      assertThat(ask(c, Protocol.LIST_PROJECTS, Map.of()).get("projects")).hasSize(1);
      assertThat(fx.store.store().listTurns(session)).isEmpty();

      // The worst case for size: every character of the longest prompt escaped as \\u0001.
      String largest = "\u0001".repeat(100_000);
      JsonNode submitted = ask(c, Protocol.SUBMIT_PROMPT,
          Map.of("sessionId", session, "prompt", largest));
      assertThat(submitted.has("turnId")).as("%s", submitted).isTrue();
      PageFixture.await("the largest prompt's turn to finish", () -> fx.store.store()
          .findTurn(submitted.get("turnId").asText()).map(ChatTurn::status)
          .filter(s -> s == TurnStatus.FINISHED).isPresent());
      assertThat(fx.store.store().findTurn(submitted.get("turnId").asText()).orElseThrow()
          .prompt()).isEqualTo(largest);
      assertThat(drops).as("the page's connection never dropped").isEmpty();
    }
  }

  @Test
  void aPastedPromptOverTheLimitIsRefusedInThePageAndTheConnectionStays() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.builder()
        .script(r -> ScriptedLlmClient.reply().text("Short and sweet.").build()).build(), true);
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", "longPrompt");
    c.put("length", 1_200_000);
    c.put("prompt", "A short question");
    c.put("timeoutMs", 30000);
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("onPaste").asText()).isEqualTo("This prompt is 1,200,000 characters long; "
        + "the limit is 100,000. Shorten it, or put the long text in a file of the project and "
        + "ask about that file.");
    assertThat(r.get("afterEnter").asText()).isEqualTo(r.get("onPaste").asText());
    assertThat(r.get("kept").asInt()).as("the prompt stays to be shortened").isEqualTo(1_200_000);
    assertThat(r.get("cleared").asText()).isEmpty();
    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("conn").toString()).as("the connection never dropped")
        .isEqualTo("[\"connected\"]");
    List<ChatTurn> turns = fx.store.store().listTurns(fx.session.id());
    assertThat(turns).extracting(ChatTurn::prompt).containsExactly("A short question");
  }

  @Test
  void aLongProjectNameGetsASlugWithinTheLimit() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.builder().build(), true);
    String name = "A project with a very long name ".repeat(6).strip();
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", "newProject");
    c.put("name", name);
    c.put("gitUrl", fx.project.gitUrl());
    c.put("timeoutMs", 30000);
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("error").asText()).isEmpty();
    assertThat(r.get("projects").asInt()).isEqualTo(2);
    assertThat(fx.store.store().listProjects(fx.user.user().id()))
        .filteredOn(p -> p.name().equals(name)).singleElement()
        .satisfies(p -> assertThat(p.slug()).hasSize(Limits.SLUG).startsWith("a-project-with"));
  }

  @Test
  void thePagesLimitIsTheServers() throws Exception {
    String composer = Files.readString(Path.of(
        "src/main/resources/web/app/composer.js"), StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("MAX_PROMPT_CHARS = (\\d+);").matcher(composer);
    assertThat(m.find()).isTrue();
    assertThat(Integer.parseInt(m.group(1))).isEqualTo(Limits.PROMPT);
  }
}
