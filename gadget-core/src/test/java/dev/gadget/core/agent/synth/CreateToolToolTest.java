package dev.gadget.core.agent.synth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import dev.gadget.core.model.ToolStep;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CreateToolTool}, {@link SynthesizedTool} and {@link ToolRegistry} on a real project
 * directory, every test and run in a real bubblewrap sandbox (workspace-write, no network).
 */
class CreateToolToolTest {
  @TempDir Path tmp;
  Path project;
  ToolRegistry registry;
  CreateToolTool create;

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(tmp.resolve("ws/project"));
    registry = new ToolRegistry(tmp.resolve("ws/.gadget/tool-registry.json"), 3);
    create = new CreateToolTool("project", registry, Set.of("read_file", "run_command"));
  }

  private RunToolContext turn() throws java.io.IOException {
    return new RunToolContext(new ProjectPaths(project),
        CommandSandbox.builder(SandboxPolicy.WORKSPACE_WRITE).hide(tmp.resolve("ws")).build());
  }

  static ObjectNode args(String name, String language, String code, String... argsAndExpects) {
    ObjectNode a = GadgetJson.mapper().createObjectNode().put("name", name)
        .put("description", "Count the words of a text.").put("language", language)
        .put("code", code);
    ObjectNode schema = a.putObject("parameters").put("type", "object");
    schema.putObject("properties").putObject("text").put("type", "string");
    schema.putArray("required").add("text");
    for (int i = 0; i < argsAndExpects.length; i += 2) {
      ObjectNode t = a.withArray("tests").addObject().put("expect", argsAndExpects[i + 1]);
      t.putObject("arguments").put("text", argsAndExpects[i]);
    }
    return a;
  }

  private List<SynthesizedTool> load() {
    List<String> problems = new ArrayList<>();
    List<SynthesizedTool> tools = SynthesizedTools.load(project, "project", registry,
        Set.of("read_file"), problems::add);
    assertThat(problems).isEmpty();
    return tools;
  }

  private static JsonNode text(String t) {
    return GadgetJson.mapper().createObjectNode().put("text", t);
  }

  @Test
  void aToolWhoseTestFailsIsNotRegisteredThenFixedItIsExperimentalThenStable() throws Exception {
    // off by one: counts one word too many
    ToolResult wrong = create.execute(args("word_count", "sh",
        "python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"text\"].split()) + 1)'",
        "a b c", "3", "one", "1"), turn());
    assertThat(wrong.error()).isTrue();
    assertThat(wrong.output()).startsWith("Tool word_count is not registered: verification "
        + "failed: 2 of 2 tests failed\n- test 1 {\"text\":\"a b c\"}: the output does not "
        + "contain \"3\"; exit code: 0 4");
    assertThat(CreateToolTool.read(wrong.output())).isEqualTo(new CreateToolTool.Outcome(
        "word_count", false, "verification", "2 of 2 tests failed"));
    assertThat(project.resolve(".agents/tools")).isEmptyDirectory();
    assertThat(registry.size()).isZero();

    ToolResult fixed = create.execute(args("word_count", "python3",
        "import json, sys\nprint(len(json.load(sys.stdin)['text'].split()))",
        "a b c", "3", "it's one", "2"), turn());
    assertThat(fixed.error()).as(fixed.output()).isFalse();
    assertThat(fixed.output()).startsWith("Tool word_count is registered in "
        + ".agents/tools/word_count/, experimental until it has run successfully in 3 turns: "
        + "its 2 tests passed.");
    assertThat(CreateToolTool.read(fixed.output()).registered()).isTrue();
    assertThat(project.resolve(".agents/tools/word_count/tool.json")).isRegularFile();
    assertThat(project.resolve(".agents/tools/word_count/run.py")).isRegularFile();
    try (var files = Files.list(project.resolve(".agents/tools"))) {
      assertThat(files).hasSize(1); // no staging folder left
    }

    SynthesizedTool tool = load().get(0);
    assertThat(tool.name()).isEqualTo("word_count");
    for (int turn = 0; turn < 3; turn++) {
      RunToolContext ctx = turn();
      ToolResult r = tool.execute(text("x y z w"), ctx);
      assertThat(r.error()).isFalse();
      assertThat(r.output()).startsWith("[experimental tool word_count: it had run "
          + "successfully in " + turn + " of 3 turns before this run]\nexit code: 0\n4");
      assertThat(SynthesizedTool.flag(r.output())).containsExactly("word_count",
          "it had run successfully in " + turn + " of 3 turns before this run");
      tool.execute(text("again"), ctx); // the same turn counts once
    }
    ToolResult stable = load().get(0).execute(text("one two"), turn());
    assertThat(stable.output()).isEqualTo("exit code: 0\n2\n");
    assertThat(SynthesizedTool.flag(stable.output())).isNull();

    // a new version must pass the old tests too, and starts experimental again
    ToolResult v2 = create.execute(args("word_count", "sh", "echo 2", "p q", "2"), turn());
    assertThat(v2.output()).startsWith("Tool word_count is not registered: verification "
        + "failed: 1 of 3 tests failed\n- test 2 {\"text\":\"a b c\"}");
    assertThat(load().get(0).execute(text("one"), turn()).output()).doesNotStartWith("[");
  }

  @Test
  void theSandboxStopsAToolThatWritesOutsideTheProjectOrReachesTheNetwork() throws Exception {
    // outside the project and outside /tmp (which is the sandbox's own, private)
    Path outside = Path.of("/var/tmp", "gadget-synth-" + System.nanoTime() + ".txt");
    ToolResult writes = create.execute(args("write_out", "sh",
        "echo stolen > " + outside + " && echo wrote", "x", "wrote"), turn());
    assertThat(writes.error()).isTrue();
    assertThat(writes.output()).contains("verification failed: 1 of 1 tests failed")
        .contains("Read-only file system");
    assertThat(outside).doesNotExist();

    ToolResult net = create.execute(args("fetch_it", "python3",
        "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=3)\nprint('reached')",
        "x", "reached"), turn());
    assertThat(net.error()).isTrue();
    assertThat(net.output()).contains("verification failed").contains("Network is unreachable");
    assertThat(project.resolve(".agents/tools/fetch_it")).doesNotExist();
  }

  @Test
  void aBadSpecificationOrNameTakenIsRefusedInWords() throws Exception {
    assertThat(create.execute(args("Bad Name", "sh", "echo", "x", "y"), turn()).output())
        .startsWith("Tool Bad Name is not registered: specification failed: the name \"Bad "
            + "Name\" must be 3 to 48 lowercase letters");
    assertThat(create.execute(args("read_file", "sh", "echo", "x", "y"), turn()).output())
        .startsWith("Tool read_file is not registered: specification failed: a tool named "
            + "read_file exists already");
    assertThat(create.execute(args("no_tests", "sh", "echo"), turn()).output())
        .startsWith("Tool no_tests is not registered: tests failed: give 1 to 20 test cases");
    assertThat(create.execute(args("ruby_it", "ruby", "puts 1", "x", "1"), turn()).output())
        .contains("specification failed: the language must be sh or python3");
    RunToolContext readOnly = new RunToolContext(new ProjectPaths(project),
        CommandSandbox.of(SandboxPolicy.READ_ONLY));
    assertThat(create.execute(args("word_count", "sh", "echo 1", "x", "1"), readOnly).output())
        .contains("the drone is read-only");
  }

  @Test
  void aCompositeToolRunsTheProjectsOtherToolsAndSaysWhich() throws Exception {
    assertThat(create.execute(args("upper", "sh", "tr a-z A-Z", "hi", "HI"), turn()).error())
        .isFalse();
    ObjectNode twice = args("upper_twice", "sh", "a=$(cat)\nfor i in 1 2; do printf '%s' \"$a\""
        + " | sh .agents/tools/upper/run.sh; echo; done", "hi", "HI");
    twice.putArray("components").add("upper");
    ToolResult made = create.execute(twice, turn());
    assertThat(made.error()).as(made.output()).isFalse();
    assertThat(project.resolve(".agents/tools/upper_twice/tool.json")).content()
        .contains("\"components\" : [ \"upper\" ]");

    SynthesizedTool tool = load().stream().filter(t -> t.name().equals("upper_twice"))
        .findFirst().orElseThrow();
    ToolResult r = tool.execute(text("ok"), turn());
    assertThat(r.output()).startsWith("[experimental tool upper_twice: it had run "
        + "successfully in 0 of 3 turns before this run]\n[composite tool upper_twice: uses "
        + "upper]\nexit code: 0\n");
    assertThat(r.output()).contains("\"TEXT\":\"OK\"}\n{\"TEXT\":\"OK\"}");
    assertThat(SynthesizedTool.composite(r.output())).containsExactly("upper_twice", "upper");
    assertThat(SynthesizedTool.composite("Error: " + r.output())).hasSize(2);
    assertThat(SynthesizedTool.composite("exit code: 0")).isEmpty();

    ObjectNode missing = args("lower_twice", "sh", "cat", "hi", "hi");
    missing.putArray("components").add("lower");
    assertThat(create.execute(missing, turn()).output()).startsWith("Tool lower_twice is not "
        + "registered: specification failed: its component lower is not a tool of the "
        + "project's .agents/tools: it has no tool.json");
  }

  @Test
  void aCompositeToolsInnerStepsAreObservedInTheSandboxInOrderWithExitCodes() throws Exception {
    assertThat(create.execute(args("upper", "sh", "tr a-z A-Z", "hi", "HI"), turn()).error())
        .isFalse();
    String count = "import json, sys\nt = json.load(sys.stdin)['text']\nprint(len(t.split()))"
        + "\nsys.exit(3 if t == 'bad' else 0)";
    assertThat(create.execute(args("count", "python3", count, "a b", "2"), turn()).error())
        .isFalse();
    // it says nothing of its steps: the drone observes them
    ObjectNode both = args("upper_count", "sh", "a=$(cat)\nprintf '%s' \"$a\" | sh "
        + ".agents/tools/upper/run.sh\nprintf '%s' \"$a\" | python3 .agents/tools/count/run.py"
        + "\necho finished", "a b", "finished");
    both.putArray("components").add("upper").add("count");
    assertThat(create.execute(both, turn()).error()).isFalse();
    SynthesizedTool tool = load().stream().filter(t -> t.name().equals("upper_count"))
        .findFirst().orElseThrow();

    ToolResult ok = tool.execute(text("a b"), turn());
    assertThat(ok.output()).contains("{\"TEXT\":\"A B\"}", "2\nfinished");
    assertThat(ok.steps()).extracting(ToolStep::name).containsExactly("upper", "count");
    assertThat(ok.steps()).extracting(ToolStep::exitCode).containsExactly(0, 0);
    assertThat(ok.steps()).allSatisfy(s -> assertThat(s.durationMs()).isNotNull()
        .isBetween(0L, 30_000L));

    ToolResult bad = tool.execute(text("bad"), turn());
    assertThat(bad.error()).isFalse(); // the composite went on
    assertThat(bad.steps()).extracting(ToolStep::name).containsExactly("upper", "count");
    assertThat(bad.steps()).extracting(ToolStep::exitCode).containsExactly(0, 3);
    assertThat(bad.steps().get(1).succeeded()).isFalse();
    // the wrappers lay over the components only inside the sandbox
    assertThat(project.resolve(".agents/tools/upper/run.sh")).content().isEqualTo("tr a-z A-Z\n");
    // without a sandbox nothing is observed
    RunToolContext full = new RunToolContext(new ProjectPaths(project), CommandSandbox.none());
    assertThat(tool.execute(text("a b"), full).steps()).isEmpty();
  }

  @Test
  void aToolsOutputIsBoundedAsACommandsIs() throws Exception {
    // 30,000 bytes: its head and its tail
    ObjectNode loud = args("loud", "sh", "head -c 100000 /dev/zero | tr '\\0' x; echo", "a", "xx");
    assertThat(create.execute(loud, turn()).error()).isFalse();
    ToolResult flood = load().stream().filter(t -> t.name().equals("loud")).findFirst()
        .orElseThrow().execute(text("a"), turn());
    assertThat(flood.output()).contains("[… 70001 bytes of output left out …]");
    assertThat(flood.output().length()).isLessThan(31_000);
  }

  @Test
  void aToolFolderLeadingOutsideTheProjectIsLeftOut() throws Exception {
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere/evil"));
    Files.writeString(elsewhere.resolve("tool.json"), "{\"name\":\"evil\",\"description\":"
        + "\"x\",\"parameters\":{\"type\":\"object\"},\"language\":\"sh\",\"tests\":[]}");
    Files.writeString(elsewhere.resolve("run.sh"), "echo evil\n");
    Files.createDirectories(project.resolve(".agents/tools"));
    Files.createSymbolicLink(project.resolve(".agents/tools/evil"), elsewhere);
    List<String> problems = new ArrayList<>();
    assertThat(SynthesizedTools.load(project, "project", registry, Set.of(), problems::add))
        .isEmpty();
    assertThat(problems).containsExactly("tool .agents/tools/evil is left out: its folder leads "
        + "outside the project");
  }

  @Test
  void orphansAreEntriesWhoseFilesAreGone() throws Exception {
    assertThat(create.execute(args("echo_it", "sh", "cat", "hi", "hi"), turn()).error())
        .isFalse();
    registry.registered("gone-project", "old_tool", "abc");
    ToolRegistry reopened = new ToolRegistry(tmp.resolve("ws/.gadget/tool-registry.json"), 3);
    assertThat(reopened.size()).isEqualTo(2);
    assertThat(reopened.cleanOrphans((p, name) -> p.equals("project")
        ? project.resolve(SynthesizedTools.FOLDER).resolve(name) : null)).isEqualTo(1);
    assertThat(new ToolRegistry(tmp.resolve("ws/.gadget/tool-registry.json"), 3).size())
        .isEqualTo(1);
  }
}
