package dev.gadget.core.agent.skills;

import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.SystemPrompt;
import dev.gadget.core.llm.ToolDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SkillCatalog}: skills found in real folders, their order, and what is left out. */
class SkillCatalogTest {
  @TempDir Path tmp;

  static void skill(Path root, String folder, String frontMatter, String body)
      throws IOException {
    Path d = Files.createDirectories(root.resolve(folder));
    Files.writeString(d.resolve("SKILL.md"), "---\n" + frontMatter + "\n---\n" + body);
  }

  @Test
  void projectSkillsComeFirstAndWinOverTheUsersOfTheSameName() throws IOException {
    Path project = Files.createDirectories(tmp.resolve("project"));
    Path user = tmp.resolve("home/.agents/skills");
    skill(project.resolve(".agents/skills"), "release", "name: release\ndescription: Cut a "
        + "release.", "Tag it.");
    skill(project.resolve(".claude/skills"), "review", "name: review\ndescription: Review a "
        + "change.", "Read the diff.");
    skill(project.resolve(".claude/skills"), "release", "name: release\ndescription: Other.",
        "");
    skill(user, "release", "name: release\ndescription: The user's.", "");
    skill(user, "notes", "name: notes\ndescription: Write notes.", "");
    skill(user, "broken", "name: broken", "");
    Files.createDirectories(user.resolve("not-a-skill"));
    List<String> problems = new ArrayList<>();

    SkillCatalog c = SkillCatalog.discover(project, List.of(user, tmp.resolve("missing")),
        problems::add);

    assertThat(c.skills()).extracting(Skill::name).containsExactly("release", "review", "notes");
    assertThat(c.skills()).extracting(Skill::shownAs).containsExactly(".agents/skills/release",
        ".claude/skills/review", user.resolve("notes").toString());
    assertThat(c.skills()).extracting(Skill::scope).containsExactly(Skill.Scope.PROJECT,
        Skill.Scope.PROJECT, Skill.Scope.USER);
    assertThat(problems).containsExactly(
        "skill .claude/skills/release/SKILL.md is left out: \"release\" is already the skill in "
            + ".agents/skills/release",
        "skill " + user.resolve("broken/SKILL.md") + " is left out: its front matter has no "
            + "description",
        "skill " + user.resolve("release/SKILL.md") + " is left out: \"release\" is already the "
            + "skill in .agents/skills/release");
    assertThat(c.promptSection()).contains("<available_skills>\n"
        + "- release: Cut a release. (project)\n- review: Review a change. (project)\n"
        + "- notes: Write notes. (user)\n</available_skills>");
  }

  @Test
  void aProjectSkillFolderThatLeadsOutsideTheProjectIsLeftOut() throws IOException {
    Path project = Files.createDirectories(tmp.resolve("project"));
    Path elsewhere = tmp.resolve("elsewhere");
    skill(elsewhere, "steal", "name: steal\ndescription: Not the project's.", "");
    Files.createDirectories(project.resolve(".agents/skills"));
    Files.createSymbolicLink(project.resolve(".agents/skills/steal"), elsewhere.resolve("steal"));
    List<String> problems = new ArrayList<>();
    assertThat(SkillCatalog.discover(project, List.of(), problems::add).isEmpty()).isTrue();
    assertThat(problems).containsExactly("skill .agents/skills/steal/SKILL.md is left out: its "
        + "folder leads outside the project");
  }

  @Test
  void theSystemPromptCarriesTheCatalogOnlyWhenTheToolIsOffered() throws IOException {
    Path project = Files.createDirectories(tmp.resolve("project"));
    skill(project.resolve(".agents/skills"), "lint", "name: lint\ndescription: Lint it.", "");
    SkillCatalog c = SkillCatalog.discover(project, List.of(), p -> { });
    SystemPrompt prompt = c.systemPrompt((request, dir, tools) -> "Base.");
    AgentRequest req = AgentRequest.builder(project, "m", "hi").build();
    ToolDefinition tool = c.tool().definition();
    assertThat(prompt.build(req, project, List.of(tool)))
        .startsWith("Base.\n\nSkills: ").contains("- lint: Lint it. (project)");
    assertThat(prompt.build(req, project, List.of())).isEqualTo("Base.");
    assertThat(tool.parameters().path("properties").path("name").path("enum").toString())
        .isEqualTo("[\"lint\"]");
    assertThat(SkillCatalog.empty().systemPrompt(SystemPrompt.DEFAULT))
        .isSameAs(SystemPrompt.DEFAULT);
  }
}
