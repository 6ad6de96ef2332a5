package dev.gadget.core.drone.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import dev.gadget.core.agent.synth.CreateToolTool;
import dev.gadget.core.agent.synth.SynthesizedTools;
import dev.gadget.core.agent.tools.CommandSandbox;
import dev.gadget.core.agent.tools.SandboxPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Synthesized tools in the drone host user's own library ({@code create_tool} with
 * {@code scope: "user"}): written there from one project's turn, offered in another project's,
 * run in the real bubblewrap sandbox as the drone builds it (workspace hidden, the library
 * readable), and dropped from the registry when its folder is gone.
 */
class UserToolsTest {
  @TempDir Path tmp;
  final List<String> problems = new ArrayList<>();

  /** The drone's parts as GadgetDrone wires them: the synthesis and its sandbox. */
  private DroneSkills skills(Path library) {
    return new DroneSkills(List.of(), true, library, problems::add);
  }

  private CommandSandbox sandbox(DroneSkills skills) {
    return CommandSandbox.builder(SandboxPolicy.WORKSPACE_WRITE).hide(tmp.resolve("ws"))
        .readable(skills.userFolders()).build();
  }

  private static Tool named(List<Tool> tools, String name) {
    return tools.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
  }

  private static ObjectNode shout(String scope, String... components) {
    ObjectNode a = GadgetJson.mapper().createObjectNode().put("name", "shout")
        .put("description", "Say a word loudly.").put("language", "sh")
        .put("code", "tr a-z A-Z").put("scope", scope);
    a.putObject("parameters").put("type", "object");
    a.withArray("tests").addObject().put("expect", "HI").putObject("arguments")
        .put("word", "hi");
    for (String c : components) {
      a.withArray("components").add(c);
    }
    return a;
  }

  @Test
  void aToolOfTheUsersLibraryIsOfferedInEveryProject() throws Exception {
    Path library = tmp.resolve("home/.agents/tools");
    Path first = Files.createDirectories(tmp.resolve("ws/first"));
    Path second = Files.createDirectories(tmp.resolve("ws/second"));
    DroneSkills skills = skills(library);
    DroneToolSynthesis synthesis = skills.synthesis(tmp.resolve("ws"));
    CommandSandbox box = sandbox(skills);

    Tool create = named(synthesis.forProject(first, box, Set.of(), null), CreateToolTool.NAME);
    assertThat(create.parameters().path("properties").path("scope").toString())
        .contains("\"project\"", "\"user\"");
    ToolResult made = create.execute(shout("user"),
        new RunToolContext(new ProjectPaths(first), box));
    assertThat(made.error()).as(made.output()).isFalse();
    assertThat(made.output()).startsWith("Tool shout is registered in " + library
        + "/shout/ (the user's own library, offered in every project), experimental");
    assertThat(library.resolve("shout/run.sh")).hasContent("tr a-z A-Z");
    try (var left = Files.list(library)) {
      assertThat(left).hasSize(1); // no staging folder left
    }
    assertThat(first.resolve(SynthesizedTools.FOLDER)).isEmptyDirectory();

    Tool inSecond = named(synthesis.forProject(second, box, Set.of(), null), "shout");
    ToolResult ran = inSecond.execute(GadgetJson.mapper().createObjectNode().put("word", "hey"),
        new RunToolContext(new ProjectPaths(second), box));
    assertThat(ran.error()).as(ran.output()).isFalse();
    assertThat(ran.output()).isEqualTo("[experimental tool shout: it had run successfully in 0 "
        + "of 3 turns before this run]\nexit code: 0\n{\"WORD\":\"HEY\"}");
    assertThat(tmp.resolve("ws/.gadget/tool-registry.json")).content()
        .contains("\"project\" : \"~user\"", "\"successfulTurns\" : 1");

    // a project's own tool of the same name wins in that project
    Path own = Files.createDirectories(second.resolve(".agents/tools/shout"));
    Files.copy(library.resolve("shout/tool.json"), own.resolve("tool.json"));
    Files.writeString(own.resolve("run.sh"), "cat\n");
    assertThat(synthesis.forProject(second, box, Set.of(), null)).filteredOn(
        t -> t.name().equals("shout")).singleElement()
        .satisfies(t -> assertThat(t.description()).contains("in .agents/tools/shout/"));
    assertThat(problems).isEmpty();

    // gone from the library: an orphan at the next start
    Files.walk(library).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile()
        .delete());
    assertThat(skills(library).synthesis(tmp.resolve("ws")).orphansCleaned()).isEqualTo(1);
  }

  @Test
  void theUserScopeIsRefusedInWordsWhereItCannotBe() throws Exception {
    Path project = Files.createDirectories(tmp.resolve("ws/p"));
    DroneSkills noLibrary = skills(null);
    DroneToolSynthesis none = noLibrary.synthesis(tmp.resolve("ws"));
    CommandSandbox box = sandbox(noLibrary);
    Tool create = named(none.forProject(project, box, Set.of(), null), CreateToolTool.NAME);
    assertThat(create.parameters().path("properties").has("scope")).isFalse();
    RunToolContext ctx = new RunToolContext(new ProjectPaths(project), box);
    assertThat(create.execute(shout("user"), ctx).output()).isEqualTo("Tool shout is not "
        + "registered: specification failed: this drone keeps no user library of tools: leave "
        + "scope out to write the tool in the project\nNothing was written. Fix it and call "
        + "create_tool again.");
    assertThat(create.execute(shout("team"), ctx).output())
        .contains("specification failed: scope is project or user, not team");

    DroneToolSynthesis withLibrary = skills(tmp.resolve("lib")).synthesis(tmp.resolve("ws"));
    Tool create2 = named(withLibrary.forProject(project, box, Set.of(), null),
        CreateToolTool.NAME);
    assertThat(create2.execute(shout("user", "other"), ctx).output()).contains(
        "specification failed: a tool of the user's library cannot have components");
    assertThat(tmp.resolve("lib")).doesNotExist();
  }
}
