package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The page while a turn runs: it survives a dropped connection and cancels a turn. */
class BrowserLiveTest extends BrowserTestBase {
  static String words(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      sb.append("word").append(i).append(i % 12 == 0 ? "\n\n" : " ");
    }
    return sb.toString().strip();
  }

  private Map<String, Object> config(String scenario) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", scenario);
    c.put("prompt", "Tell me a long story");
    c.put("timeoutMs", 30000);
    return c;
  }

  @Test
  void aDroppedConnectionReconnectsAndMissesNoToken() throws Exception {
    String story = words(120);
    fx = new PageFixture(tmp, ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(25))
        .reply(ScriptedLlmClient.reply().thinking("Once upon a time, thinking.")
            .text(story).build()).build(), true);
    JsonNode r = BrowserHarness.run(config("reconnect"));

    assertThat(r.get("status").asText()).isEqualTo("finished");
    String atDrop = r.get("atDrop").get(1).get("text").asText();
    assertThat(atDrop.length()).as("the drop came mid-stream").isLessThan(story.length() / 2);
    List<ChatTurn> turns = fx.store.store().listTurns(fx.session.id());
    TurnBlock.Responding stored = (TurnBlock.Responding) turns.get(0).blocks().get(1);
    assertThat(stored.content()).isEqualTo(story);
    JsonNode blocks = r.get("blocks");
    assertThat(blocks).hasSize(2);
    // Markdown turns the blank lines into paragraphs; the words are all there, once, in order.
    assertThat(blocks.get(1).get("text").asText().replaceAll("\\s+", " ").strip())
        .isEqualTo(story.replaceAll("\\s+", " "));
  }

  /**
   * Seed 001 §7.5's "Drone crashed during processing - retrying", as the page shows it: the drone
   * is crashed while the model streams and started again on its workspace; the running turn's
   * footer says the seed's words, and the finished turn (live, and after a reload from the store)
   * says it was retried after one crash.
   */
  @Test
  void aDroneCrashMidTurnIsShownAndTheTurnSaysItWasRetried() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(20))
        .reply(ScriptedLlmClient.reply().text(words(400)).build())
        .reply(ScriptedLlmClient.reply().text("Redone after the crash.").build()).build();
    fx = new PageFixture(tmp, llm, true);
    CompletableFuture<JsonNode> run = CompletableFuture.supplyAsync(() -> {
      try {
        return BrowserHarness.run(config("recovered"));
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    PageFixture.await("the model streams", () -> !llm.requests().isEmpty());
    fx.drone.abandon();
    GadgetDrone again = DroneCommand.start(fx.app.socketUri(), fx.user.droneToken(),
        tmp.resolve("workspace"), "test-drone", new LlmClients(p -> llm),
        new ConsoleDroneListener(new PrintStream(new ByteArrayOutputStream(), true,
            StandardCharsets.UTF_8), "test", new CompletableFuture<>()));
    JsonNode r;
    try {
      r = run.get(60, TimeUnit.SECONDS);
    } finally {
      again.close();
    }

    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("notices").toString()).contains("Drone crashed during processing - retrying");
    assertThat(r.get("footer").asText()).startsWith("finished")
        .contains("retried after 1 drone crash");
    assertThat(r.get("reloaded").asText()).contains("retried after 1 drone crash");
    assertThat(llm.requests()).hasSize(2);
  }

  @Test
  void theCancelButtonCancelsTheRunningTurn() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(50))
        .reply(ScriptedLlmClient.reply().text(words(400)).build()).build(), true);
    JsonNode r = BrowserHarness.run(config("cancel"));

    assertThat(r.get("status").asText()).isEqualTo("cancelled");
    assertThat(r.get("footer").asText()).contains("cancelled");
    assertThat(r.get("cancelHidden").asBoolean()).isTrue();
    assertThat(r.get("sendEnabled").asBoolean()).isTrue();
    ChatTurn turn = fx.store.store().listTurns(fx.session.id()).get(0);
    assertThat(turn.status()).isEqualTo(TurnStatus.CANCELLED);
  }
}
