package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.TurnBlock;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A command that waits for approval, approved from the page with the keyboard, in Chromium. */
class BrowserApprovalTest extends BrowserTestBase {
  @Test
  void aWaitingCommandIsApprovedByKeyboardAndTheDecisionIsShownAfterAReload() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("Recording it.")
            .toolCall("run_command", "{\"command\":\"echo approved >> approved.txt\"}").build())
        .reply(ScriptedLlmClient.reply().text("Recorded.").build())
        .build(), true);
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", "approval");
    c.put("prompt", "Record that it was approved");
    c.put("timeoutMs", 30000);
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("card").get("params").asText()).isEqualTo("echo approved >> approved.txt");
    assertThat(r.get("card").get("text").asText()).contains("run_command waits for your approval");
    assertThat(r.get("card").get("buttons")).extracting(JsonNode::asText)
        .containsExactly("Approve", "Approve run_command for this chat", "Deny");
    assertThat(r.get("reachedByKeyboard").asBoolean()).isTrue();
    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("cardsLeft").asInt()).isZero();
    assertThat(r.get("before").asText()).isEqualTo("Approved by tester");
    assertThat(r.get("after").asText()).isEqualTo("Approved by tester");
    assertThat(r.get("policyAfter").asText()).isEqualTo("commands");

    List<ChatTurn> turns = fx.store.store().listTurns(fx.session.id());
    ToolApproval stored = turns.get(0).blocks().stream()
        .filter(b -> b instanceof TurnBlock.Tool)
        .map(b -> ((TurnBlock.Tool) b).content().approval()).findFirst().orElseThrow();
    assertThat(stored).isEqualTo(ToolApproval.approve("tester"));
    assertThat(Files.readAllLines(tmp.resolve("workspace/greeter/approved.txt")))
        .containsExactly("approved");
  }
}
