package dev.gadget.core.agent.synth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolContext;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.tools.RunCommandTool;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tool the agent wrote ({@link CreateToolTool}), run from its folder in the project: its
 * executable gets the arguments as one JSON object on standard input and runs as
 * {@code run_command} runs a command (the loop's sandbox, a clean environment, a 30-second
 * timeout, 30,000 bytes of output); exit code 0 is success, its output the result. While it is
 * experimental ({@link ToolRegistry}) each result begins with a line saying so
 * ({@link #EXPERIMENTAL}); the first successful run in a turn counts that turn. A composite
 * tool's result carries its inner steps, as the sandbox observed them ({@link CompositeSteps}).
 */
public final class SynthesizedTool implements Tool {
  /** How the line that flags an experimental tool's result begins. */
  public static final String EXPERIMENTAL = "[experimental tool ";
  /** How the line that names a composite tool's components begins. */
  public static final String COMPOSITE = "[composite tool ";
  private static final Pattern COMPOSITE_LINE = Pattern.compile(
      "^(?:Error: )?(?:\\[experimental tool [^\\n]*\\n)?"
      + "\\[composite tool (\\S+): uses ([^\\]\\n]*)\\]");
  private static final Pattern FLAG = Pattern.compile(
      "^(?:Error: )?\\[experimental tool (\\S+): ([^\\]\\n]*)\\]");
  /** Runs the executables: the bounds of one run. */
  static final RunCommandTool RUNNER = new RunCommandTool(Duration.ofSeconds(30),
      Duration.ofSeconds(30), 30_000);

  private final ToolSpec spec;
  private final String folder;
  private final String project;
  private final String digest;
  private final ToolRegistry registry;

  /** Per run: the tools that ran successfully in it already. */
  private static final class Ran extends HashSet<String> {
    private static final long serialVersionUID = 1L;
  }

  /**
   * The tool {@code spec} whose files are in {@code folder} (relative to the project, with
   * {@code /}), version {@code digest} of {@code project}'s tools in {@code registry}.
   */
  public SynthesizedTool(ToolSpec spec, String folder, String project, String digest,
      ToolRegistry registry) {
    this.spec = Objects.requireNonNull(spec, "spec");
    this.folder = Objects.requireNonNull(folder, "folder");
    this.project = Objects.requireNonNull(project, "project");
    this.digest = Objects.requireNonNull(digest, "digest");
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /** Its spec. */
  public ToolSpec spec() {
    return spec;
  }

  /** The version: a digest of its files. */
  public String digest() {
    return digest;
  }

  @Override
  public String name() {
    return spec.name();
  }

  @Override
  public String description() {
    return spec.description() + " (a tool written by the agent, in " + folder + "/)";
  }

  @Override
  public JsonNode parameters() {
    return spec.parameters();
  }

  @Override
  public ToolResult execute(JsonNode arguments, ToolContext context) throws Exception {
    int before = registry.successfulTurns(project, spec.name(), digest);
    ToolResult r;
    try (CompositeSteps steps = CompositeSteps.open(spec, context)) {
      r = run(spec, folder, arguments, steps == null ? context : steps.context(context));
      if (steps != null) {
        r = new ToolResult(r.output(), r.error(), steps.steps());
      }
    }
    if (!spec.components().isEmpty()) {
      r = r.withOutput(COMPOSITE + spec.name() + ": uses " + String.join(" ",
          spec.components()) + "]\n" + r.output());
    }
    if (!r.error() && context.state(Ran.class, Ran::new).add(spec.name())) {
      registry.ranInATurn(project, spec.name(), digest);
    }
    if (before >= registry.threshold()) {
      return r;
    }
    String flag = EXPERIMENTAL + spec.name() + ": it had run successfully in " + before + " of "
        + registry.threshold() + " turns before this run]\n";
    return r.withOutput(flag + r.output());
  }

  /** Runs the executable of {@code spec} in {@code folder} with {@code arguments}, as a command. */
  static ToolResult run(ToolSpec spec, String folder, JsonNode arguments, ToolContext context)
      throws Exception {
    return RUNNER.execute(GadgetJson.mapper().createObjectNode()
        .put("command", command(spec, folder, arguments)), context);
  }

  /** The shell command that runs it: the arguments piped in, the executable by its language. */
  public static String command(ToolSpec spec, String folder, JsonNode arguments) {
    String json = arguments.toString();
    return "printf '%s' " + quote(json) + " | " + spec.language() + " "
        + quote(folder + "/" + spec.entry());
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /**
   * The components a composite tool's result names: {@code [tool name, component…]}, or an empty
   * list when {@code result} is not a composite tool's.
   */
  public static java.util.List<String> composite(String result) {
    Matcher m = result == null ? null : COMPOSITE_LINE.matcher(result);
    if (m == null || !m.find()) {
      return java.util.List.of();
    }
    java.util.List<String> out = new java.util.ArrayList<>(java.util.List.of(m.group(1)));
    out.addAll(java.util.List.of(m.group(2).trim().split(" ")));
    return out;
  }

  /**
   * The flag of an experimental tool's result: {@code [tool name, why]}, or {@code null} when
   * {@code result} is not flagged.
   */
  public static String[] flag(String result) {
    Matcher m = result == null ? null : FLAG.matcher(result);
    return m != null && m.find() ? new String[] {m.group(1), m.group(2)} : null;
  }
}
