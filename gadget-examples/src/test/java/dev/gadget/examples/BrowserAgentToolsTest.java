package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ScriptedLlmClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A chat's skills and the agent's own tools in the page (a real server, drone and Chromium):
 * listed with the new tool experimental, promoted, then deleted from the project.
 */
class BrowserAgentToolsTest extends BrowserTestBase {
  @Test
  void thePanelListsPromotesAndDeletesTheAgentsTool() throws Exception {
    String spec = "{\"name\":\"shout\",\"description\":\"Say it loudly.\",\"parameters\":"
        + "{\"type\":\"object\"},\"language\":\"sh\",\"code\":\"tr a-z A-Z\",\"tests\":"
        + "[{\"arguments\":{\"w\":\"hi\"},\"expect\":\"HI\"}]}";
    fx = new PageFixture(tmp, ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("create_tool", spec).build(),
        ScriptedLlmClient.reply().text("Written.").build()), true, true,
        b -> b.createTools(true));
    Path skill = Files.createDirectories(tmp.resolve("greeter/.agents/skills/greet"));
    Files.writeString(skill.resolve("SKILL.md"),
        "---\nname: greet\ndescription: Greets people politely.\n---\nSay hello.\n");
    ProjectGit.commitAll(tmp.resolve("greeter"), "a skill");
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", "agentTools");
    c.put("prompt", "Make a tool");
    c.put("tool", "shout");
    c.put("timeoutMs", 30000);
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("listed").toString()).isEqualTo("[{\"kind\":\"tool\",\"name\":\"shout\","
        + "\"badge\":\"experimental · 0 of 3 turns\",\"experimental\":true,\"buttons\":"
        + "[\"Promote\",\"Delete\"],\"title\":\"Say it loudly. (.agents/tools/shout)\"},"
        + "{\"kind\":\"skill\",\"name\":\"greet\",\"badge\":\"skill\",\"experimental\":false,"
        + "\"buttons\":[\"Delete\"],\"title\":\"Greets people politely. "
        + "(.agents/skills/greet)\"}]");
    assertThat(r.get("promoted").get(0).get("badge").asText()).isEqualTo("stable");
    assertThat(r.get("promoted").get(0).get("buttons").toString()).isEqualTo("[\"Delete\"]");
    assertThat(r.get("deleted").toString()).doesNotContain("shout").contains("greet");
    assertThat(r.get("error").asText()).isEmpty();
    assertThat(tmp.resolve("workspace/greeter/.agents/tools/shout")).doesNotExist();
  }
}
