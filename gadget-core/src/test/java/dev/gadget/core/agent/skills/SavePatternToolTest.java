package dev.gadget.core.agent.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SavePatternTool}: a turn's workflow kept as a skill, found and activated later. */
class SavePatternToolTest {
  @TempDir Path tmp;

  static ObjectNode args(String name) {
    ObjectNode a = GadgetJson.mapper().createObjectNode().put("name", name)
        .put("description", "Check the build: use before a release.");
    a.putArray("steps").add("Build it").add("Run \"the\" tests");
    a.putArray("tools").add("run_command").add("read_file");
    return a;
  }

  @Test
  void aSavedPatternIsASkillWhoseActivationSaysItIsOne() throws Exception {
    Path project = Files.createDirectories(tmp.resolve("project"));
    RunToolContext ctx = new RunToolContext(new ProjectPaths(project));
    ToolResult saved = new SavePatternTool().execute(args("build-check"), ctx);
    assertThat(saved.output()).isEqualTo("Saved the workflow pattern build-check in "
        + ".agents/skills/build-check/SKILL.md: later turns list it under Skills.");

    SkillFile file = SkillFile.parse(Files.readString(
        project.resolve(".agents/skills/build-check/SKILL.md")), "build-check");
    assertThat(file.problems()).isEmpty();
    assertThat(file.metadata()).containsEntry("gadget-pattern", "run_command read_file");
    assertThat(file.body()).contains("1. Build it\n2. Run \"the\" tests\n",
        "Tools, in order: run_command, read_file");

    SkillCatalog catalog = SkillCatalog.discover(project, List.of(), p -> { });
    assertThat(catalog.promptSection()).contains("- build-check: Check the build: use before a "
        + "release. (project)");
    String activated = catalog.tool().execute(GadgetJson.mapper().createObjectNode()
        .put("name", "build-check"), ctx).output();
    assertThat(activated).startsWith("<skill name=\"build-check\" folder=\".agents/skills/"
        + "build-check\" pattern=\"run_command read_file\">");
    assertThat(ActivateSkillTool.pattern(activated))
        .containsExactly("build-check", "run_command", "read_file");

    // saved again: a new version of the pattern; a person's skill is never overwritten
    new SavePatternTool().execute(args("build-check"), ctx);
    SkillCatalogTest.skill(project.resolve(".agents/skills"), "release", "name: release\n"
        + "description: Cut a release.", "Tag it.");
    assertThatThrownBy(() -> new SavePatternTool().execute(args("release"), ctx))
        .isInstanceOf(ToolException.class).hasMessage("a skill named release exists already "
            + "and is not a saved pattern: choose another name");
    assertThat(ActivateSkillTool.pattern(catalog.tool().execute(GadgetJson.mapper()
        .createObjectNode().put("name", "build-check"), ctx).output())).hasSize(3);
    assertThatThrownBy(() -> new SavePatternTool().execute(args("Bad Name"), ctx))
        .hasMessageStartingWith("the name must be 1 to 64 lowercase letters");
    assertThatThrownBy(() -> new SavePatternTool().execute(args("x"), new RunToolContext(
        new ProjectPaths(project), CommandSandbox.of(SandboxPolicy.READ_ONLY))))
        .hasMessage("the drone is read-only: no pattern can be saved");
  }
}
