package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.protocol.Protocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A chat's skills and synthesized tools as a page sees and changes them, through the runtime
 * (server, drone in its sandbox, real git): {@code listAgentTools} lists them with the tool
 * experimental, {@code changeAgentTool} promotes it (its next run is not flagged) and deletes
 * a project skill and the tool (their folders and the registry entry go); refusals in words.
 */
class AgentToolsRuntimeTest extends SynthesisRuntimeTestBase {
  private JsonNode change(String kind, String name, String action) throws Exception {
    return page.request(Protocol.CHANGE_AGENT_TOOL, Map.of("sessionId", session, "kind", kind,
        "name", name, "action", action));
  }

  private static String toolResult(ScriptedLlmClient llm, int request) {
    List<LlmMessage> messages = llm.requests().get(request).messages();
    return messages.get(messages.size() - 1).content();
  }

  @Test
  void aPageListsPromotesAndDeletesAChatsSkillsAndTools() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("create_tool", shoutTool())
            .build(),
        ScriptedLlmClient.reply().text("Written.").build(),
        ScriptedLlmClient.reply().toolCall("shout", "{\"word\":\"hey\"}").build(),
        ScriptedLlmClient.reply().text("Shouted.").build());
    Path whisper = Files.createDirectories(tmp.resolve("lib/whisper"));
    Files.writeString(whisper.resolve("tool.json"), "{\"name\":\"whisper\",\"description\":"
        + "\"Say it softly.\",\"parameters\":{\"type\":\"object\"},\"language\":\"sh\","
        + "\"tests\":[{\"arguments\":{},\"expect\":\"{}\"}]}");
    Files.writeString(whisper.resolve("run.sh"), "tr A-Z a-z\n");
    GadgetDrone drone = start(llm, tmp.resolve("lib"));
    JsonNode none = page.request(Protocol.LIST_AGENT_TOOLS, Map.of("sessionId", session));
    assertThat(none.path("error").asText()).startsWith("no turn of this chat ran on a drone");

    turn(drone, "Write a tool");
    Path project = tmp.resolve("ws/sample");
    Path skill = project.resolve(".agents/skills/greet");
    Files.createDirectories(skill);
    Files.writeString(skill.resolve("SKILL.md"),
        "---\nname: greet\ndescription: Greets people politely.\n---\nSay hello.\n");

    JsonNode listed = page.request(Protocol.LIST_AGENT_TOOLS, Map.of("sessionId", session));
    assertThat(listed.path("tools").toString()).as(listed.toString()).isEqualTo(
        "[{\"name\":\"shout\",\"description\":\"Say a word loudly.\",\"folder\":"
        + "\".agents/tools/shout\",\"experimental\":true,\"successfulTurns\":0,"
        + "\"threshold\":3,\"scope\":\"project\"},{\"name\":\"whisper\",\"description\":"
        + "\"Say it softly.\",\"folder\":\"" + whisper + "\",\"experimental\":true,"
        + "\"successfulTurns\":0,\"threshold\":3,\"scope\":\"user\"}]");
    assertThat(listed.path("skills").toString()).isEqualTo("[{\"name\":\"greet\","
        + "\"description\":\"Greets people politely.\",\"folder\":\".agents/skills/greet\","
        + "\"scope\":\"project\"}]");

    JsonNode promoted = change("tool", "shout", "promote");
    assertThat(promoted.path("tools").get(0).path("experimental").asBoolean(true))
        .as(promoted.toString()).isFalse();
    assertThat(tmp.resolve("ws/.gadget/tool-registry.json")).content()
        .contains("\"successfulTurns\" : 3");
    turn(drone, "Shout hey");
    assertThat(toolResult(llm, 3)).isEqualTo("exit code: 0\n{\"WORD\":\"HEY\"}"); // not flagged

    assertThat(change("skill", "greet", "promote").path("error").asText())
        .isEqualTo("only a tool is promoted; a skill has no trial");
    assertThat(change("tool", "whisper", "delete").path("error").asText()).isEqualTo(
        "the tool whisper is in the drone host's user library, not in the project");
    assertThat(change("tool", "whisper", "promote").path("tools").get(1).path("experimental")
        .asBoolean(true)).isFalse();
    assertThat(change("tool", "nope", "delete").path("error").asText())
        .isEqualTo("there is no tool nope here");
    assertThat(change("tool", "shout", "rename").path("error").asText())
        .contains("action").doesNotContain("Jackson", "com.fasterxml");

    // the person commits the tool; deleting it is then a change of the checkout, in no turn
    RuntimeFixture.git(project, "add", ".agents/tools/shout");
    RuntimeFixture.git(project, "-c", "user.name=Ada", "-c", "user.email=ada@example.com",
        "commit", "-q", "-m", "the shout tool");
    long diffs = diffBlocks();
    JsonNode noSkill = change("skill", "greet", "delete");
    assertThat(noSkill.path("skills").size()).as(noSkill.toString()).isZero();
    assertThat(skill).doesNotExist();
    JsonNode noTool = change("tool", "shout", "delete");
    assertThat(noTool.path("tools").toString()).as(noTool.toString()).doesNotContain("shout")
        .contains("whisper");
    assertThat(project.resolve(".agents/tools/shout")).doesNotExist();
    assertThat(tmp.resolve("ws/.gadget/tool-registry.json")).content().doesNotContain("shout");
    assertThat(RuntimeFixture.git(project, "status", "--porcelain", ".agents/tools"))
        .contains(" D .agents/tools/shout/run.sh", " D .agents/tools/shout/tool.json");
    assertThat(diffBlocks()).as("no turn's diff").isEqualTo(diffs);
  }

  /** How many diff blocks the chat's turns have. */
  private long diffBlocks() {
    return fx.store.listTurns(session).stream().flatMap(t -> t.blocks().stream())
        .filter(b -> b instanceof dev.gadget.core.model.TurnBlock.Diff).count();
  }
}
