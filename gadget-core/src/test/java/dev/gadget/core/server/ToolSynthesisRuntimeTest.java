package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.protocol.Protocol;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Synthesized tools through the runtime (server, drone in its bubblewrap sandbox, real git): the
 * chat's setting decides whether {@code create_tool} is offered where the drone allows it; a
 * registered tool is in the turn's diff, and undo from a page removes it.
 */
class ToolSynthesisRuntimeTest extends SynthesisRuntimeTestBase {
  @Test
  void theChatSaysWhetherToolsAreWrittenAndUndoRemovesOne() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().text("No tools today.").build(),
        ScriptedLlmClient.reply().toolCall("create_tool", shoutTool()).build(),
        ScriptedLlmClient.reply().text("Written.").build());
    GadgetDrone drone = start(llm, null);
    Map<String, Object> off = new HashMap<>(Map.of("sessionId", session, "createTools", false));
    JsonNode set = page.request(Protocol.APPROVAL_POLICY, off);
    assertThat(set.path("createTools").asBoolean(true)).as(set.toString()).isFalse();
    turn(drone, "Anything?");
    assertThat(llm.requests().get(0).tools()).extracting(ToolDefinition::name)
        .doesNotContain("create_tool");

    assertThat(page.request(Protocol.APPROVAL_POLICY, Map.of("sessionId", session,
        "createTools", true)).path("createTools").asBoolean()).isTrue();
    String t = turn(drone, "Write a tool");
    assertThat(llm.requests().get(1).tools()).extracting(ToolDefinition::name)
        .contains("create_tool");
    String told = llm.requests().get(2).messages().get(llm.requests().get(2).messages().size()
        - 1).content();
    assertThat(told).startsWith("Tool shout is registered in .agents/tools/shout/");
    Path project = tmp.resolve("ws/sample");
    assertThat(project.resolve(".agents/tools/shout/run.sh")).hasContent("tr a-z A-Z");
    JsonNode changes = page.eventsOf(t).stream()
        .filter(e -> e.name().equals(Protocol.TURN_CHANGES)).findFirst().orElseThrow()
        .payload();
    assertThat(changes.path("diff").path("files").toString()).contains(
        "\"path\":\".agents/tools/shout/run.sh\",\"change\":\"added\"",
        "\"path\":\".agents/tools/shout/tool.json\",\"change\":\"added\"");

    JsonNode undone = page.request(Protocol.UNDO_TURN, Map.of("turnId", t));
    assertThat(undone.path("ok").asBoolean()).as(undone.toString()).isTrue();
    assertThat(project.resolve(".agents/tools/shout")).doesNotExist();
  }
}
