package dev.gadget.core.agent.skills;

import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.SystemPrompt;
import dev.gadget.core.agent.internal.Subfolders;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.llm.ToolDefinition;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The Agent Skills one turn offers: those of its project ({@link #PROJECT_FOLDERS}) and those of
 * the drone host's user (the folders an application names, such as {@code ~/.agents/skills}).
 * The system prompt carries the catalog (names and descriptions, {@link #systemPrompt}); the
 * model loads a skill's body with {@link ActivateSkillTool}. A project's skill wins over the
 * user's of the same name, and among folders the first listed wins. Immutable.
 */
public final class SkillCatalog {
  /** The project's skill folders, in order: the standard's, then Claude Code's. */
  public static final List<String> PROJECT_FOLDERS = List.of(".agents/skills", ".claude/skills");
  /** The most skills read from one folder. */
  public static final int MAX_SKILLS_PER_FOLDER = 100;
  /** The largest {@code SKILL.md} read, in bytes. */
  public static final int MAX_FILE_BYTES = 256 * 1024;

  private static final SkillCatalog EMPTY = new SkillCatalog(List.of());
  private final List<Skill> skills;

  private SkillCatalog(List<Skill> skills) {
    this.skills = List.copyOf(skills);
  }

  /** No skills. */
  public static SkillCatalog empty() {
    return EMPTY;
  }

  /**
   * The skills of {@code projectDir} (nullable: none) and of {@code userFolders} (each a folder of
   * skill folders; missing ones are skipped). Each problem (a front matter that is not valid, a
   * skill shadowed by another of its name, a folder that cannot be read) goes to
   * {@code problems} in words, naming the file; a skill that cannot be used is left out, nothing
   * is fatal. A project's skill folder that leads outside the project is left out.
   */
  public static SkillCatalog discover(Path projectDir, List<Path> userFolders,
      Consumer<String> problems) {
    Map<String, Skill> byName = new LinkedHashMap<>();
    if (projectDir != null) {
      Path real;
      try {
        real = projectDir.toRealPath();
      } catch (IOException e) {
        real = projectDir.toAbsolutePath().normalize();
      }
      for (String f : PROJECT_FOLDERS) {
        scan(real.resolve(f), real, Skill.Scope.PROJECT, byName, problems);
      }
    }
    for (Path f : userFolders) {
      scan(f.toAbsolutePath().normalize(), null, Skill.Scope.USER, byName, problems);
    }
    return new SkillCatalog(new ArrayList<>(byName.values()));
  }

  private static void scan(Path root, Path project, Skill.Scope scope, Map<String, Skill> byName,
      Consumer<String> problems) {
    if (!Files.isDirectory(root)) {
      return;
    }
    String rootShown = shown(root, project);
    if (project != null && !inside(root, project)) {
      problems.accept("skills in " + rootShown + " are not read: the folder leads outside the "
          + "project");
      return;
    }
    Collection<Path> folders;
    try {
      folders = Subfolders.of(root);
    } catch (IOException e) {
      problems.accept("skills in " + rootShown + " cannot be listed: " + e.getMessage());
      return;
    }
    int read = 0;
    for (Path d : folders) {
      Path file = d.resolve(SkillFile.NAME);
      if (!Files.isRegularFile(file)) {
        continue;
      }
      String where = shown(file, project);
      if (++read > MAX_SKILLS_PER_FOLDER) {
        problems.accept("skills in " + rootShown + ": only the first " + MAX_SKILLS_PER_FOLDER
            + " folders (by name) are read");
        return;
      }
      if (project != null && !inside(d, project)) {
        problems.accept("skill " + where + " is left out: its folder leads outside the project");
        continue;
      }
      SkillFile parsed;
      try {
        parsed = SkillFile.parse(read(file), d.getFileName().toString());
      } catch (IOException e) {
        problems.accept("skill " + where + " is left out: " + e.getMessage());
        continue;
      }
      for (String p : parsed.problems()) {
        problems.accept("skill " + where + (parsed.usable() ? ": " : " is left out: ") + p);
      }
      if (!parsed.usable()) {
        continue;
      }
      Skill earlier = byName.get(parsed.name());
      if (earlier != null) {
        problems.accept("skill " + where + " is left out: \"" + parsed.name() + "\" is already "
            + "the skill in " + earlier.shownAs());
        continue;
      }
      byName.put(parsed.name(), new Skill(parsed.name(), parsed.description(), d,
          shown(d, project), scope));
    }
  }

  /**
   * A {@code SKILL.md}'s text, at most {@link #MAX_FILE_BYTES}.
   *
   * @throws IOException with a message in words when it cannot be read or is too large
   */
  static String read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] b = in.readNBytes(MAX_FILE_BYTES + 1);
      if (b.length > MAX_FILE_BYTES) {
        throw new IOException("SKILL.md is larger than " + MAX_FILE_BYTES / 1024 + " KiB");
      }
      return new String(b, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw e.getMessage() != null && e.getMessage().startsWith("SKILL.md") ? e
          : new IOException("SKILL.md cannot be read (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static boolean inside(Path p, Path project) {
    try {
      return p.toRealPath().startsWith(project);
    } catch (IOException e) {
      return false;
    }
  }

  /** {@code p} relative to the project, with {@code /}; absolute when not a project's. */
  private static String shown(Path p, Path project) {
    return project == null ? p.toString()
        : project.relativize(p).toString().replace('\\', '/');
  }

  /** The skills, project's first. */
  public List<Skill> skills() {
    return skills;
  }

  /** Whether there is none. */
  public boolean isEmpty() {
    return skills.isEmpty();
  }

  /** The skill named {@code name}. */
  public Optional<Skill> find(String name) {
    return skills.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /**
   * What the system prompt says of the skills: how to use them, then one line per skill (name,
   * description, where it comes from); {@code ""} when there is none.
   */
  public String promptSection() {
    if (skills.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("Skills: instructions for particular tasks, written by "
        + "the project's team or the user. When a task matches a skill's description, call "
        + ActivateSkillTool.NAME + " with its name before you begin and follow what it says. A "
        + "skill's other files (scripts/, references/, assets/) are in its folder: read them "
        + "and run its scripts with your tools (run_command for a folder outside the project).\n"
        + "<available_skills>\n");
    for (Skill s : skills) {
      sb.append("- ").append(s.name()).append(": ").append(s.description().replace('\n', ' '))
          .append(s.scope() == Skill.Scope.PROJECT ? " (project)" : " (user)").append('\n');
    }
    return sb.append("</available_skills>\n").toString();
  }

  /**
   * {@code base} with {@link #promptSection()} after it, when there are skills and the model has
   * {@link ActivateSkillTool}.
   */
  public SystemPrompt systemPrompt(SystemPrompt base) {
    if (skills.isEmpty()) {
      return base;
    }
    String section = promptSection();
    return new SystemPrompt() {
      @Override
      public String build(AgentRequest request, Path projectDir, List<ToolDefinition> tools) {
        return withSection(base.build(request, projectDir, tools), tools);
      }

      @Override
      public String build(AgentRequest request, Path projectDir, List<ToolDefinition> tools,
          CommandSandbox sandbox) {
        return withSection(base.build(request, projectDir, tools, sandbox), tools);
      }

      private String withSection(String prompt, List<ToolDefinition> tools) {
        boolean offered = tools.stream().anyMatch(t -> t.name().equals(ActivateSkillTool.NAME));
        return !offered ? prompt : prompt + (prompt.endsWith("\n") ? "\n" : "\n\n") + section;
      }
    };
  }

  /** The tool that loads these skills' bodies. */
  public ActivateSkillTool tool() {
    return new ActivateSkillTool(this);
  }
}
