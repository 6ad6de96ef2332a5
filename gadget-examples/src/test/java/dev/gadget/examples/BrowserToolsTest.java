package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ToolCall;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tools in the page: a running command's live output, and failures shown as failures. */
class BrowserToolsTest {
  @TempDir Path tmp;
  PageFixture fx;

  @BeforeAll
  static void findChromium() {
    BrowserHarness.chromium();
  }

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  @Test
  void aRunningCommandShowsItsOutputAndFailedToolsShowAsFailed() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.of(
        ScriptedLlmClient.reply().text("Let me look.")
            .toolCall("read_file", "{\"path\":\".\"}")
            .toolCall("run_command", "{\"command\":\"echo first; sleep 2; echo second; exit 3\"}")
            .build(),
        ScriptedLlmClient.reply().text("Both failed.").build()), true);
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", "tools");
    c.put("prompt", "Try things");
    c.put("timeoutMs", 30000);
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("status").asText()).isEqualTo("finished");
    // while the command ran: its first line shown, not yet its second, the tool open and amber
    JsonNode running = r.get("running").get(1);
    assertThat(running.get("state").asText()).isEqualTo("running");
    assertThat(running.get("status").asText()).isEqualTo("running…");
    assertThat(running.get("result").asText()).contains("first").doesNotContain("second");
    assertThat(running.get("open").asBoolean()).isTrue();
    // the read_file before it had already failed
    assertThat(r.get("running").get(0).get("state").asText()).isEqualTo("failed");
    // the same element turned into the outcome (none re-created)
    int runningId = r.get("runningIds").get(2).get("id").asInt();
    assertThat(r.get("finalIds").get(2).get("id").asInt()).isEqualTo(runningId);

    for (String phase : List.of("live", "stored")) {
      JsonNode tools = r.get(phase);
      assertThat(tools).as(phase).hasSize(2);
      for (JsonNode t : tools) {
        assertThat(t.get("state").asText()).as(phase).isEqualTo("failed");
        assertThat(t.get("dot").asText()).as(phase).isEqualTo("dot failed");
        assertThat(t.get("status").asText()).as(phase).startsWith("failed · ")
            .doesNotContain("done");
      }
      assertThat(tools.get(0).get("result").asText()).as(phase).contains("is a directory");
      assertThat(tools.get(1).get("result").asText()).as(phase)
          .startsWith("Error: exit code: 3").contains("first", "second");
    }
    List<ToolCall> stored = fx.store.store().listTurns(fx.session.id()).get(0).toolCalls();
    assertThat(stored).allSatisfy(call -> assertThat(call.failed()).isTrue());
    assertThat(stored.get(1).durationMs()).isGreaterThanOrEqualTo(2_000);
  }
}
