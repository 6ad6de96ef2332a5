package dev.gadget.core.agent.skills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@value #NAME}: loads a skill's instructions (its {@code SKILL.md} body, read again when
 * called) and lists the files of its folder, which the model then reads and runs with the
 * ordinary tools (its commands in the sandbox). The catalog it serves is fixed for the turn.
 */
public final class ActivateSkillTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "activate_skill";
  /** The most characters of a body returned. */
  public static final int MAX_BODY = 50_000;
  /** The most files listed. */
  public static final int MAX_FILES = 100;

  private static final Pattern PATTERN_TAG = Pattern.compile(
      "^<skill name=\"([^\"]+)\" folder=\"[^\"]*\" pattern=\"([^\"]*)\">");
  private final SkillCatalog catalog;

  ActivateSkillTool(SkillCatalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Load a skill's instructions (the skills are listed in the system prompt, under "
        + "Skills) before a task its description matches; it also lists the skill's files.";
  }

  @Override
  public JsonNode parameters() {
    ObjectNode schema = GadgetJson.mapper().createObjectNode().put("type", "object");
    ObjectNode name = schema.putObject("properties").putObject("name").put("type", "string")
        .put("description", "the skill's name");
    catalog.skills().forEach(s -> name.withArray("enum").add(s.name()));
    schema.putArray("required").add("name");
    return schema;
  }

  @Override
  public ToolResult execute(JsonNode arguments, ToolContext context) {
    String wanted = arguments.path("name").asText("");
    Skill skill = catalog.find(wanted).orElseThrow(() -> new ToolException("there is no skill \""
        + wanted + "\"; the skills are: " + String.join(", ",
            catalog.skills().stream().map(Skill::name).toList())));
    SkillFile file;
    try {
      file = SkillFile.parse(SkillCatalog.read(skill.file()), skill.folder().getFileName()
          .toString());
    } catch (IOException e) {
      throw new ToolException("skill \"" + wanted + "\" cannot be loaded: " + e.getMessage());
    }
    if (!file.usable()) {
      throw new ToolException("skill \"" + wanted + "\" cannot be loaded any more: "
          + String.join("; ", file.problems()));
    }
    String body = file.body();
    if (body.length() > MAX_BODY) {
      body = body.substring(0, MAX_BODY) + "\n[cut at " + MAX_BODY + " characters]";
    }
    String pattern = file.metadata().get(SavePatternTool.PATTERN_KEY);
    StringBuilder sb = new StringBuilder("<skill name=\"").append(skill.name())
        .append("\" folder=\"").append(skill.shownAs())
        .append(pattern == null ? "" : "\" pattern=\"" + pattern.replace('"', ' ').strip())
        .append("\">\n").append(body)
        .append("\n</skill>\n");
    List<String> files = files(skill.folder());
    sb.append("Files in ").append(skill.shownAs()).append(": ")
        .append(String.join(", ", files)).append('\n');
    if (skill.scope() == Skill.Scope.USER) {
      sb.append("This folder is outside the project: read its files and run its scripts with "
          + "run_command, by their full path.\n");
    } else {
      sb.append("Paths in the skill are relative to its folder.\n");
    }
    return ToolResult.ok(sb.toString());
  }

  /**
   * The workflow pattern ({@link SavePatternTool}) an {@value #NAME} result loaded: its name,
   * then its tools in order; empty when it loaded another skill.
   */
  public static List<String> pattern(String result) {
    Matcher m = PATTERN_TAG.matcher(result == null ? "" : result);
    if (!m.find()) {
      return List.of();
    }
    List<String> out = new ArrayList<>(List.of(m.group(1)));
    for (String t : m.group(2).split(" ")) {
      if (!t.isBlank()) {
        out.add(t);
      }
    }
    return out;
  }

  /** The files of {@code folder}, relative to it, at most {@link #MAX_FILES}, sorted. */
  private static List<String> files(Path folder) {
    List<String> out = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(folder, 4)) {
      walk.filter(Files::isRegularFile).map(p -> folder.relativize(p).toString()
          .replace('\\', '/')).sorted().limit(MAX_FILES + 1L).forEach(out::add);
    } catch (IOException | java.io.UncheckedIOException e) {
      out.add("(the folder cannot be listed)");
    }
    if (out.size() > MAX_FILES) {
      out.set(MAX_FILES, "… (only the first " + MAX_FILES + ")");
      return out.subList(0, MAX_FILES + 1);
    }
    return out;
  }
}
