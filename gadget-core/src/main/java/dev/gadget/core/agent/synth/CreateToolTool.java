package dev.gadget.core.agent.synth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.tools.SandboxPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@value #NAME}: the agent writes itself a tool. In five steps, as seed 004's synthesis
 * pipeline: the {@code specification} (name, description, JSON Schema, language) is checked; the
 * {@code tests} (the new ones and, for a new version, the old version's) are checked; the
 * {@code implementation} is written to a staging folder in the project; {@code verification}
 * runs every test there as {@code run_command} runs a command (in the loop's sandbox); and only
 * when every test passed, {@code registration} puts it in {@code .agents/tools/NAME/} (the
 * turn's diff shows it; undo removes it), experimental in the {@link ToolRegistry}. The result's
 * first line says what came of it ({@link #read}).
 */
public final class CreateToolTool implements Tool {
  /** The tool's name. */
  public static final String NAME = "create_tool";
  /** The steps, in order. */
  public static final List<String> STEPS = List.of("specification", "tests", "implementation",
      "verification", "registration");
  /** The longest code. */
  public static final int MAX_CODE = 100_000;
  // a failed call's result as stored and read by the model begins "Error: " (ToolResult#forModel)
  private static final Pattern FAILED = Pattern.compile(
      "^(?:Error: )?Tool (\\S+) is not registered: (\\w+) failed: (.*)$", Pattern.MULTILINE);
  private static final Pattern REGISTERED = Pattern.compile("^Tool (\\S+) is registered");

  private final String project;
  private final ToolRegistry registry;
  private final Set<String> taken;
  /** The drone host user's library of tools, or {@code null}. */
  private final Path userFolder;

  /**
   * What came of a {@value #NAME} call, read from its result.
   *
   * @param toolName the tool's name, or {@code ""}
   * @param registered whether it was registered
   * @param failedStep the step that failed, or {@code null}
   * @param error why, or {@code null}
   */
  public record Outcome(String toolName, boolean registered, String failedStep, String error) {}

  /**
   * Creates tools in {@code project}'s folder, counted in {@code registry}; names in
   * {@code taken} (the loop's other tools) are refused.
   */
  public CreateToolTool(String project, ToolRegistry registry, Set<String> taken) {
    this(project, registry, taken, null);
  }

  /**
   * As {@link #CreateToolTool(String, ToolRegistry, Set)}, and with {@code scope: "user"} in
   * the drone host user's library {@code userFolder} ({@code NAME/} in it, known as
   * {@link SynthesizedTools#USER} in {@code registry}) when it is not {@code null}.
   */
  public CreateToolTool(String project, ToolRegistry registry, Set<String> taken,
      Path userFolder) {
    this.project = project;
    this.registry = registry;
    this.taken = Set.copyOf(taken);
    this.userFolder = userFolder == null ? null : userFolder.toAbsolutePath().normalize();
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Write a new tool when none fits a task you will repeat: a name, a description, a "
        + "JSON Schema of its arguments, code in sh or python3 that reads the arguments as one "
        + "JSON object on standard input and prints its result (exit code 0 on success), and "
        + "test cases. Every test runs in the sandbox; the tool is registered in "
        + SynthesizedTools.FOLDER + "/NAME/ only when all pass, experimental until it has run "
        + "successfully in " + registry.threshold() + " turns, and offered from the next turn "
        + "on. Giving an existing tool's name writes a new version, which must pass the old "
        + "tests too. A composite tool names the project's tools it runs in components and "
        + "runs each as: printf '%s' JSON | python3 (or sh) " + SynthesizedTools.FOLDER
        + "/NAME/run.py (or run.sh)." + (userFolder == null ? "" : " With scope user, the "
        + "tool goes to the user's own library instead, offered in every project (no "
        + "components).");
  }

  @Override
  public JsonNode parameters() {
    ObjectNode s = GadgetJson.mapper().createObjectNode().put("type", "object");
    ObjectNode p = s.putObject("properties");
    p.putObject("name").put("type", "string")
        .put("description", "lowercase letters, digits and _, 3 to 48");
    p.putObject("description").put("type", "string")
        .put("description", "what the tool does and when to use it");
    p.putObject("parameters").put("type", "object")
        .put("description", "the JSON Schema of its arguments, of type object");
    ObjectNode lang = p.putObject("language").put("type", "string");
    ToolSpec.LANGUAGES.forEach(lang.putArray("enum")::add);
    p.putObject("code").put("type", "string").put("description", "the executable's source");
    if (userFolder != null) {
      ObjectNode scope = p.putObject("scope").put("type", "string").put("description",
          "project (the default): in this project; user: in the user's own library");
      scope.putArray("enum").add("project").add("user");
    }
    p.putObject("components").put("type", "array")
        .put("description", "optional: the project's synthesized tools this one runs")
        .putObject("items").put("type", "string");
    ObjectNode test = p.putObject("tests").put("type", "array")
        .put("description", "1 to " + ToolSpec.MAX_TESTS + " cases").putObject("items")
        .put("type", "object");
    test.putObject("properties").set("arguments", GadgetJson.mapper().createObjectNode()
        .put("type", "object"));
    ((ObjectNode) test.get("properties")).putObject("expect").put("type", "string")
        .put("description", "text the output must contain");
    test.putArray("required").add("arguments").add("expect");
    s.putArray("required").add("name").add("description").add("parameters").add("language")
        .add("code").add("tests");
    return s;
  }

  @Override
  public ToolResult execute(JsonNode args, ToolContext ctx) throws Exception {
    String name = args.path("name").asText("");
    if (ctx.sandbox().policy() == SandboxPolicy.READ_ONLY) {
      return failed(name, "specification", "the drone is read-only: no tool can be written");
    }
    ToolSpec spec;
    try {
      spec = ToolSpec.fromJson(args);
    } catch (IllegalArgumentException e) {
      return failed(name, "specification", e.getMessage());
    }
    List<String> wrong = spec.problems().stream().filter(p -> !p.startsWith("test")
        && !p.startsWith("give ")).toList();
    if (taken.contains(spec.name())) {
      wrong = List.of("a tool named " + spec.name() + " exists already: choose another name");
    }
    if (!wrong.isEmpty()) {
      return failed(name, "specification", String.join("; ", wrong));
    }
    String scope = args.path("scope").asText("project");
    boolean user = scope.equals("user");
    if (!user && !scope.equals("project")) {
      return failed(name, "specification", "scope is project or user, not " + scope);
    }
    if (user && userFolder == null) {
      return failed(name, "specification", "this drone keeps no user library of tools: "
          + "leave scope out to write the tool in the project");
    }
    if (user && !spec.components().isEmpty()) {
      return failed(name, "specification", "a tool of the user's library cannot have "
          + "components: they are the project's tools");
    }
    Path folder = user ? userFolder.resolve(spec.name())
        : ctx.resolve(SynthesizedTools.FOLDER + "/" + spec.name());
    String key = user ? SynthesizedTools.USER : project;
    List<ToolSpec.TestCase> tests = new ArrayList<>(new LinkedHashSet<>(spec.tests()));
    if (Files.isDirectory(folder)) {
      try {
        for (ToolSpec.TestCase old : SynthesizedTools.read(folder).tests()) {
          if (!tests.contains(old)) {
            tests.add(old);
          }
        }
      } catch (IOException | IllegalArgumentException e) {
        // an unreadable old version has no tests to keep
      }
    }
    spec = new ToolSpec(spec.name(), spec.description(), spec.parameters(), spec.language(),
        tests, spec.components());
    for (String c : spec.components()) {
      Path component = ctx.resolve(SynthesizedTools.FOLDER + "/" + c);
      try {
        SynthesizedTools.read(component);
      } catch (IOException | IllegalArgumentException e) {
        return failed(name, "specification", "its component " + c + " is not a tool of the "
            + "project's " + SynthesizedTools.FOLDER + ": " + e.getMessage());
      }
    }
    List<String> testProblems = spec.problems();
    if (!testProblems.isEmpty()) {
      return failed(name, "tests", String.join("; ", testProblems));
    }
    String code = args.path("code").isTextual() ? args.get("code").asText() : "";
    if (code.isBlank() || code.length() > MAX_CODE) {
      return failed(name, "implementation", "the code must be 1 to " + MAX_CODE
          + " characters");
    }
    String stagingName = "." + spec.name() + ".staging";
    Path staging = ctx.resolve(SynthesizedTools.FOLDER + "/" + stagingName);
    try {
      delete(staging);
      Files.createDirectories(staging);
      Files.writeString(staging.resolve(ToolSpec.FILE), GadgetJson.mapper()
          .writerWithDefaultPrettyPrinter().writeValueAsString(spec.toJson()) + "\n");
      Files.writeString(staging.resolve(spec.entry()), code.endsWith("\n") ? code : code + "\n");
      List<String> failures = verify(spec, SynthesizedTools.FOLDER + "/" + stagingName, ctx);
      if (!failures.isEmpty()) {
        return failed(name, "verification", failures.size() + " of " + tests.size()
            + " tests failed", failures);
      }
      Path ready = user ? copyNextTo(staging, folder) : staging;
      delete(folder);
      Files.createDirectories(folder.getParent());
      Files.move(ready, folder, StandardCopyOption.ATOMIC_MOVE);
      String digest = SynthesizedTools.digest(folder, spec);
      registry.registered(key, spec.name(), digest);
    } catch (IOException e) {
      return failed(name, "registration", "its files cannot be written: " + e.getMessage());
    } finally {
      delete(staging);
      if (user) {
        delete(folder.resolveSibling("." + folder.getFileName() + ".staging"));
      }
    }
    String where = user ? folder.toString() : SynthesizedTools.FOLDER + "/" + spec.name();
    return ToolResult.ok("Tool " + spec.name() + " is registered in " + where + "/"
        + (user ? " (the user's own library, offered in every project)" : "") + ", "
        + "experimental until it has run successfully in " + registry.threshold() + " turns: "
        + "its " + tests.size() + (tests.size() == 1 ? " test" : " tests") + " passed.\n"
        + "It is offered from the next turn on. In this turn, run it with run_command: "
        + SynthesizedTool.command(spec, where, tests.get(0).arguments()));
  }

  /** Runs every test of {@code spec} from {@code folder}; what failed, one line each. */
  private static List<String> verify(ToolSpec spec, String folder, ToolContext ctx)
      throws Exception {
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < spec.tests().size(); i++) {
      ToolSpec.TestCase t = spec.tests().get(i);
      ToolResult r = SynthesizedTool.run(spec, folder, t.arguments(), ctx);
      if (r.error() || !r.output().contains(t.expect())) {
        String out = r.output().strip();
        failures.add("test " + (i + 1) + " " + t.arguments() + ": "
            + (r.error() ? "" : "the output does not contain \"" + t.expect() + "\"; ")
            + (out.length() > 2000 ? out.substring(0, 2000) + "…" : out).replace('\n', ' '));
      }
    }
    return failures;
  }

  private static ToolResult failed(String name, String step, String why) {
    return failed(name, step, why, List.of());
  }

  private static ToolResult failed(String name, String step, String why, List<String> details) {
    StringBuilder sb = new StringBuilder("Tool ").append(name.isBlank() ? "(unnamed)" : name)
        .append(" is not registered: ").append(step).append(" failed: ")
        .append(why.replace('\n', ' ')).append('\n');
    details.forEach(d -> sb.append("- ").append(d).append('\n'));
    sb.append("Nothing was written. Fix it and call ").append(NAME).append(" again.");
    return ToolResult.error(sb.toString());
  }

  /**
   * Copies the verified files of {@code staging} (in the project) to a staging folder beside
   * {@code folder} (on the user library's file system, which a move of the folder may not
   * cross); that folder.
   */
  private static Path copyNextTo(Path staging, Path folder) throws IOException {
    Path next = folder.resolveSibling("." + folder.getFileName() + ".staging");
    delete(next);
    Files.createDirectories(next);
    try (Stream<Path> files = Files.list(staging)) {
      for (Path f : files.toList()) {
        Files.copy(f, next.resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
      }
    }
    return next;
  }

  private static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a leftover staging folder is replaced by the next attempt
    }
  }

  /** What came of a {@value #NAME} call whose result is {@code result}. */
  public static Outcome read(String result) {
    String r = result == null ? "" : result;
    Matcher ok = REGISTERED.matcher(r);
    if (ok.find()) {
      return new Outcome(ok.group(1), true, null, null);
    }
    Matcher no = FAILED.matcher(r);
    if (no.find()) {
      return new Outcome(no.group(1), false, no.group(2), no.group(3));
    }
    return new Outcome("", false, STEPS.get(0), r.strip());
  }
}
