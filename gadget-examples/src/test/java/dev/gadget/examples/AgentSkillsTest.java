package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ScriptedLlmClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agent Skills through a real server and drone: a project's {@code .agents/skills} and a user
 * folder are listed in the system prompt, activated with {@code activate_skill}, and their
 * scripts run with {@code run_command} in the bubblewrap sandbox; a skill whose front matter is
 * invalid is left out and reported once. Seed004-client.js reads what comes.
 */
class AgentSkillsTest {
  @TempDir Path tmp;
  PageFixture fx;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  @Test
  void aProjectsAndTheUsersSkillsAreListedActivatedAndTheirScriptsRunInTheSandbox()
      throws Exception {
    Path userSkills = tmp.resolve("home/.agents/skills");
    write(userSkills.resolve("user-hello/SKILL.md"), "---\nname: user-hello\ndescription: Say "
        + "hello the user's way.\n---\nRun scripts/hello.sh.\n");
    write(userSkills.resolve("user-hello/scripts/hello.sh"), "echo user-skill-ok\n");
    String userScript = userSkills.resolve("user-hello/scripts/hello.sh").toString();
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("activate_skill", "{\"name\":\"greet-check\"}")
            .build(),
        ScriptedLlmClient.reply().toolCall("run_command",
            "{\"command\":\"sh .agents/skills/greet-check/scripts/check.sh World\"}").build(),
        ScriptedLlmClient.reply().text("Checked.").build(),
        ScriptedLlmClient.reply().toolCall("activate_skill", "{\"name\":\"user-hello\"}")
            .build(),
        ScriptedLlmClient.reply().toolCall("run_command",
            "{\"command\":\"sh " + userScript + "\"}").build(),
        ScriptedLlmClient.reply().text("Hello done.").build());
    fx = new PageFixture(tmp, llm, false, true, b -> b.userSkills(List.of(userSkills)));
    Path project = tmp.resolve("greeter");
    write(project.resolve(".agents/skills/greet-check/SKILL.md"), "---\nname: greet-check\n"
        + "description: >\n  Check the greeter. Use when asked to check it.\n---\n"
        + "# Greet check\n\nRun `scripts/check.sh NAME` from the project.\n");
    write(project.resolve(".agents/skills/greet-check/scripts/check.sh"),
        "printf 'skill-ok %s in %s\\n' \"$1\" \"$(basename \"$PWD\")\"\n");
    write(project.resolve(".agents/skills/bad/SKILL.md"), "---\nname: bad\n---\nNo "
        + "description.\n");
    ProjectGit.commitAll(project, "skills");

    JsonNode log = Seed004Client.run(fx, fx.user.pageToken(), List.of(query("Check the greeter"), query("Say hello my way")),
        30000, 0);

    List<JsonNode> events = Seed004Client.agentEvents(log);
    assertThat(events).extracting(e -> e.get("event_type").asText()).containsExactly(
        "executing", "execution_complete", "executing", "execution_complete",
        "synthesizing_response", "complete",
        "executing", "execution_complete", "executing", "execution_complete",
        "synthesizing_response", "complete");
    assertThat(events.get(0).get("data").get("tool_name").asText()).isEqualTo("activate_skill");
    assertThat(events.get(1).get("data").get("result").asText())
        .startsWith("<skill name=\"greet-check\" folder=\".agents/skills/greet-check\">\n"
            + "# Greet check\n\nRun `scripts/check.sh NAME` from the project.\n</skill>\n")
        .contains("Files in .agents/skills/greet-check: SKILL.md, scripts/check.sh");
    assertThat(events.get(3).get("data").get("result").asText()).doesNotStartWith("Error")
        .contains("skill-ok World in greeter");
    assertThat(events.get(7).get("data").get("result").asText())
        .contains("<skill name=\"user-hello\" folder=\"" + userSkills.resolve("user-hello")
            + "\">").contains("outside the project");
    assertThat(events.get(9).get("data").get("result").asText()).doesNotStartWith("Error")
        .contains("user-skill-ok");

    // the catalog (names and descriptions only) is in the system prompt; the bad skill is not
    LlmMessage system = llm.requests().get(0).messages().get(0);
    assertThat(system.content()).contains("<available_skills>\n"
        + "- greet-check: Check the greeter. Use when asked to check it. (project)\n"
        + "- user-hello: Say hello the user's way. (user)\n</available_skills>")
        .doesNotContain("Run `scripts/check.sh", "- bad");
    assertThat(llm.requests().get(0).tools()).extracting(t -> t.name())
        .contains("activate_skill");

    // the invalid skill is reported in words, once over both turns
    String droneLog = Files.readString(tmp.resolve("workspace/.gadget/logs/drone.log"));
    String problem = "skill .agents/skills/bad/SKILL.md is left out: its front matter has no "
        + "description";
    assertThat(droneLog).contains(problem);
    assertThat(droneLog.indexOf(problem)).isEqualTo(droneLog.lastIndexOf(problem));
  }

  @Test
  void aSavedWorkflowPatternIsReusedAndReportedAsSuch() throws Exception {
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("run_command", "{\"command\":\"echo built\"}")
            .build(),
        ScriptedLlmClient.reply().toolCall("save_pattern", "{\"name\":\"build-check\","
            + "\"description\":\"Check the build. Use before a release.\",\"steps\":"
            + "[\"Build it\"],\"tools\":[\"run_command\"]}").build(),
        ScriptedLlmClient.reply().text("Built, and kept how.").build(),
        ScriptedLlmClient.reply().toolCall("activate_skill", "{\"name\":\"build-check\"}")
            .build(),
        ScriptedLlmClient.reply().toolCall("run_command", "{\"command\":\"echo built\"}")
            .build(),
        ScriptedLlmClient.reply().text("Built again.").build());
    fx = new PageFixture(tmp, llm, false, true, b -> b.createTools(true));
    JsonNode log = Seed004Client.run(fx, fx.user.pageToken(), List.of(query("Build it"), query("Build it again")),
        30000, 0);
    List<JsonNode> events = Seed004Client.agentEvents(log);

    assertThat(events).extracting(e -> e.get("event_type").asText()).containsExactly(
        "executing", "execution_complete", "executing", "execution_complete",
        "synthesizing_response", "complete",
        "executing", "execution_complete", "using_workflow_pattern", "pattern_execution_start",
        "pattern_step", "executing", "execution_complete", "pattern_step_complete",
        "pattern_execution_complete", "synthesizing_response", "complete");
    assertThat(events.get(2).get("data").get("tool_name").asText()).isEqualTo("save_pattern");
    assertThat(events.get(8).get("data").toString()).isEqualTo("{\"pattern_name\":"
        + "\"build-check\",\"tool_sequence\":[\"run_command\"]}");
    assertThat(events.get(9).get("data").toString())
        .isEqualTo("{\"pattern_name\":\"build-check\"}");
    assertThat(events.get(10).get("data").toString())
        .isEqualTo("{\"step\":1,\"total\":1,\"tool_name\":\"run_command\"}");
    assertThat(events.get(13).get("data").get("result").asText()).contains("built");
    assertThat(events.get(14).get("data").toString())
        .isEqualTo("{\"pattern_name\":\"build-check\"}");
    // the second turn's system prompt lists it with the other skills
    assertThat(llm.requests().get(3).messages().get(0).content())
        .contains("- build-check: Check the build. Use before a release. (project)");
  }

  private static Map<String, Object> query(String prompt) {
    return Seed004Client.query(prompt, "skills");
  }
}
