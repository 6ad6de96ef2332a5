package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page and the prompt limit: a pasted prompt over 1 MB is refused in the page with a message
 * under the composer, nothing is sent, and the connection stays up for the next prompt.
 */
class BrowserPromptLimitTest {
  @TempDir Path tmp;
  PageFixture fx;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
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
  void thePagesLimitIsTheServers() throws Exception {
    String composer = Files.readString(Path.of(
        "src/main/resources/web/app/composer.js"), StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("MAX_PROMPT_CHARS = (\\d+);").matcher(composer);
    assertThat(m.find()).isTrue();
    assertThat(Integer.parseInt(m.group(1))).isEqualTo(dev.gadget.core.protocol.Limits.PROMPT);
  }
}
