package dev.gadget.core.agent.skills;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One Agent Skill (agentskills.io): a folder holding a {@code SKILL.md} whose front matter gives
 * its {@code name} and {@code description}, and whose body tells the model how to do a task.
 *
 * @param name the skill's name, as the model activates it
 * @param description what it does and when to use it (at most
 *     {@value SkillFile#MAX_DESCRIPTION} characters), shown in the catalog
 * @param folder the skill's folder, an absolute path
 * @param shownAs the folder as the model is told it: relative to the project for a project's
 *     skill, absolute for the user's
 * @param scope where it was found
 */
public record Skill(String name, String description, Path folder, String shownAs, Scope scope) {
  /** Where a skill was found. */
  public enum Scope {
    /** In the turn's project ({@code .agents/skills/}, {@code .claude/skills/}). */
    PROJECT,
    /** In a folder of the drone's host user ({@code ~/.agents/skills/}). */
    USER
  }

  public Skill {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(folder, "folder");
    Objects.requireNonNull(shownAs, "shownAs");
    Objects.requireNonNull(scope, "scope");
  }

  /** The skill's {@code SKILL.md}. */
  public Path file() {
    return folder.resolve(SkillFile.NAME);
  }
}
