package dev.gadget.core.agent.skills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.tools.SandboxPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@value #NAME}: the agent keeps what worked in a turn as an Agent Skill, a <em>workflow
 * pattern</em>: {@code .agents/skills/NAME/SKILL.md} with its description (when to use it), its
 * steps and the tools it used in order (in its front matter's {@code metadata}, as
 * {@value #PATTERN_KEY}). Later turns list it with the other skills; activating it is reported as
 * the pattern's reuse. It never overwrites a skill that is not a pattern.
 */
public final class SavePatternTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "save_pattern";
  /** The {@code metadata} key that marks a pattern: its tools, space-separated, in order. */
  public static final String PATTERN_KEY = "gadget-pattern";
  /** The most steps and tools. */
  public static final int MAX_STEPS = 20;
  private static final Pattern NAME_RULE = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
  private static final Pattern TOOL = Pattern.compile("[A-Za-z0-9_]{1,64}");

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Keep what worked in this turn as a skill for later turns: a name, when to use it, "
        + "its steps and the tools used, in order. Later turns list it under Skills.";
  }

  @Override
  public JsonNode parameters() {
    ObjectNode s = GadgetJson.mapper().createObjectNode().put("type", "object");
    ObjectNode p = s.putObject("properties");
    p.putObject("name").put("type", "string")
        .put("description", "lowercase letters, digits and single hyphens, at most 64");
    p.putObject("description").put("type", "string")
        .put("description", "what it does and when to use it");
    p.putObject("steps").put("type", "array").put("description", "the steps, in order")
        .putObject("items").put("type", "string");
    p.putObject("tools").put("type", "array").put("description", "the tools used, in order")
        .putObject("items").put("type", "string");
    s.putArray("required").add("name").add("description").add("steps").add("tools");
    return s;
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext ctx) throws IOException {
    if (ctx.sandbox().policy() == SandboxPolicy.READ_ONLY) {
      throw new ToolException("the drone is read-only: no pattern can be saved");
    }
    String name = args.path("name").asText("");
    if (name.length() > SkillFile.MAX_NAME || !NAME_RULE.matcher(name).matches()) {
      throw new ToolException("the name must be 1 to 64 lowercase letters, digits and single "
          + "hyphens; got \"" + name + "\"");
    }
    String description = args.path("description").asText("").strip().replace('\n', ' ');
    if (description.isEmpty() || description.length() > SkillFile.MAX_DESCRIPTION) {
      throw new ToolException("the description must be 1 to " + SkillFile.MAX_DESCRIPTION
          + " characters: say what it does and when to use it");
    }
    List<String> steps = texts(args, "steps");
    List<String> tools = texts(args, "tools");
    for (String t : tools) {
      if (!TOOL.matcher(t).matches()) {
        throw new ToolException("\"" + t + "\" is not a tool's name");
      }
    }
    Path folder = ctx.resolve(SkillCatalog.PROJECT_FOLDERS.get(0) + "/" + name);
    Path file = folder.resolve(SkillFile.NAME);
    if (Files.exists(file) && !SkillFile.parse(SkillCatalog.read(file), name).metadata()
        .containsKey(PATTERN_KEY)) {
      throw new ToolException("a skill named " + name + " exists already and is not a saved "
          + "pattern: choose another name");
    }
    StringBuilder md = new StringBuilder("---\nname: ").append(name)
        .append("\ndescription: ").append(GadgetJson.mapper().writeValueAsString(description))
        .append("\nmetadata:\n  ").append(PATTERN_KEY).append(": \"")
        .append(String.join(" ", tools)).append("\"\n---\n\n# ").append(name)
        .append("\n\nA workflow that worked before. Steps:\n\n");
    for (int i = 0; i < steps.size(); i++) {
      md.append(i + 1).append(". ").append(steps.get(i).replace('\n', ' ')).append('\n');
    }
    md.append("\nTools, in order: ").append(String.join(", ", tools)).append('\n');
    Files.createDirectories(folder);
    Files.writeString(file, md.toString());
    return ToolResult.ok("Saved the workflow pattern " + name + " in " + ctx.display(file)
        + ": later turns list it under Skills.");
  }

  private static List<String> texts(JsonNode args, String field) {
    JsonNode a = args.path(field);
    List<String> out = new ArrayList<>();
    a.forEach(x -> {
      if (x.isTextual() && !x.asText().isBlank()) {
        out.add(x.asText().strip());
      }
    });
    if (!a.isArray() || out.isEmpty() || out.size() > MAX_STEPS || out.size() != a.size()) {
      throw new ToolException("\"" + field + "\" must be a list of 1 to " + MAX_STEPS
          + " texts");
    }
    return out;
  }
}
