package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
