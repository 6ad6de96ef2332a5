package dev.gadget.core.agent.tools;

import static dev.gadget.core.agent.tools.FileToolsTest.args;
import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.RecordingListener;
import dev.gadget.core.agent.TestRepo;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every way out of the project directory is refused, by every tool that takes a path. */
class ConfinementTest {
  @TempDir Path tmp;
  TestRepo repo;
  Path outside;
  RunToolContext ctx;

  @BeforeEach
  void setUp() throws Exception {
    repo = TestRepo.create(tmp, "inside.txt", "inside\n", "dir/in.txt", "in\n");
    outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("secret.txt"), "TOP SECRET\n");
    Path p = repo.dir();
    Files.createSymbolicLink(p.resolve("escape_dir"), outside);                     // dir link out
    Files.createSymbolicLink(p.resolve("escape_file"), outside.resolve("secret.txt")); // file link
    Files.createSymbolicLink(p.resolve("dangling"), outside.resolve("new.txt"));   // to nowhere
    Files.createSymbolicLink(p.resolve("rel_escape"), Path.of("../outside"));      // relative link
    Files.createSymbolicLink(p.resolve("inner_link"), p.resolve("dir"));           // stays inside
    ctx = new RunToolContext(new ProjectPaths(p));
  }

  static Stream<Arguments> escapes() {
    return Stream.of(
        Arguments.of("../outside/secret.txt", "contains \"..\""),
        Arguments.of("dir/../../outside/secret.txt", "contains \"..\""),
        Arguments.of("..", "contains \"..\""),
        Arguments.of("ABSOLUTE", "is absolute"),
        Arguments.of("/etc/passwd", "is absolute"),
        Arguments.of("~/secret.txt", "is absolute"),
        Arguments.of("escape_dir/secret.txt", "symbolic link that resolves outside"),
        Arguments.of("escape_dir", "symbolic link that resolves outside"),
        Arguments.of("rel_escape/secret.txt", "symbolic link that resolves outside"),
        Arguments.of("escape_file", "symbolic link that resolves outside"),
        Arguments.of("escape_dir/new.txt", "symbolic link that resolves outside"),
        Arguments.of("dangling", "symbolic link that resolves nowhere"));
  }

  private String path(String raw) {
    return raw.equals("ABSOLUTE") ? outside.resolve("secret.txt").toString() : raw;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("escapes")
  void everyToolRefusesTheEscape(String raw, String why) throws Exception {
    String p = path(raw).replace("\\", "\\\\");
    List<Object[]> calls = List.of(
        new Object[] {new ReadFileTool(), "{\"path\":\"" + p + "\"}"},
        new Object[] {new WriteFileTool(), "{\"path\":\"" + p + "\",\"content\":\"pwned\"}"},
        new Object[] {new EditFileTool(),
            "{\"path\":\"" + p + "\",\"old_text\":\"TOP\",\"new_text\":\"pwned\"}"},
        new Object[] {new ListDirTool(), "{\"path\":\"" + p + "\"}"},
        new Object[] {new GlobTool(), "{\"pattern\":\"**\",\"path\":\"" + p + "\"}"},
        new Object[] {new GrepTool(), "{\"pattern\":\"SECRET\",\"path\":\"" + p + "\"}"});
    for (Object[] call : calls) {
      Tool tool = (Tool) call[0];
      assertThatThrownBy(() -> tool.execute(args((String) call[1]), ctx))
          .as(tool.name() + " " + raw)
          .isInstanceOf(ToolException.class)
          .hasMessageStartingWith("path refused: ")
          .hasMessageContaining(why);
    }
    assertOutsideUntouched();
  }

  @Test
  void theGadgetDirectoryIsOutOfEveryToolsReach() throws Exception {
    Path gadget = Files.createDirectories(repo.dir().resolve(".gadget"));
    Files.writeString(gadget.resolve("work-order.json"), "{\"order\":\"SECRET\"}");
    for (String p : List.of(".gadget/work-order.json", ".gadget", "dir/../.gadget/x",
        "./.gadget/new.json")) {
      for (Tool tool : List.of(new ReadFileTool(), new WriteFileTool(), new ListDirTool())) {
        assertThatThrownBy(() -> tool.execute(args("{\"path\":\"" + p
            + "\",\"content\":\"x\"}"), ctx))
            .as(tool.name() + " " + p).isInstanceOf(ToolException.class)
            .hasMessageStartingWith("path refused: ");
      }
    }
    assertThat(new ReadFileTool().execute(args("{\"path\":\"inside.txt\"}"), ctx).output())
        .isEqualTo("inside\n");
    assertThat(new ListDirTool().execute(args("{\"path\":\"\"}"), ctx).output())
        .doesNotContain(".gadget");
    assertThat(new GrepTool().execute(args("{\"pattern\":\"SECRET\"}"), ctx).output())
        .isEqualTo("no match for SECRET in .");
    assertThat(new GlobTool().execute(args("{\"pattern\":\"**/*.json\"}"), ctx).output())
        .startsWith("no file matches");
    assertThat(Files.readString(gadget.resolve("work-order.json")))
        .isEqualTo("{\"order\":\"SECRET\"}");
    assertThat(Files.exists(gadget.resolve("new.json"))).isFalse();
  }

  @Test
  void gitsOwnDirectoryIsOutOfEveryFileToolsReachHoweverItIsNamed() throws Exception {
    Path config = repo.dir().resolve(".git/config");
    String before = Files.readString(config);
    Files.createDirectories(repo.dir().resolve("sub/.git"));
    Files.createSymbolicLink(repo.dir().resolve("cfg"), config);
    Files.createSymbolicLink(repo.dir().resolve("hooks"), repo.dir().resolve(".git/hooks"));
    for (String p : List.of(".git/config", ".git", ".git/hooks/pre-commit", "./.git/HEAD",
        "dir/.git/config", ".GIT/config", "sub/.git/config", "cfg", "hooks/post-commit",
        ".git/info/attributes", ".git/modules/lib/config")) {
      for (Tool tool : List.of(new ReadFileTool(), new WriteFileTool(), new EditFileTool(),
          new ListDirTool())) {
        assertThatThrownBy(() -> tool.execute(args("{\"path\":\"" + p
            + "\",\"content\":\"x\",\"old_text\":\"[core]\",\"new_text\":\"x\"}"), ctx))
            .as(tool.name() + " " + p).isInstanceOf(ToolException.class)
            .hasMessage("path refused: \"" + p + "\" is in git's own .git (git runs the "
                + "hooks and commands it holds, so only Gadget writes there); read the history "
                + "with git commands in run_command, and leave commits to the user");
      }
    }
    assertThat(Files.readString(config)).isEqualTo(before);
    assertThat(repo.dir().resolve(".git/hooks/post-commit")).doesNotExist();
    // names that only start like it are ordinary files
    assertThat(new WriteFileTool().execute(args("{\"path\":\".gitattributes\","
        + "\"content\":\"*.txt text\\n\"}"), ctx).error()).isFalse();
    assertThat(new WriteFileTool().execute(args("{\"path\":\"docs/.github/x.yml\","
        + "\"content\":\"x\"}"), ctx).error()).isFalse();
  }

  @Test
  void pathsInsideTheProjectAndLinksThatStayInsideWork() throws Exception {
    assertThat(ctx.resolve("")).isEqualTo(ctx.projectDir());
    assertThat(ctx.resolve("./dir/in.txt")).isEqualTo(ctx.projectDir().resolve("dir/in.txt"));
    assertThat(ctx.resolve("inner_link/in.txt")).isEqualTo(ctx.projectDir().resolve("dir/in.txt"));
    assertThat(ctx.resolve("not/yet/there.txt"))
        .isEqualTo(ctx.projectDir().resolve("not/yet/there.txt"));
    assertThat(new ReadFileTool().execute(args("{\"path\":\"inner_link/in.txt\"}"), ctx).output())
        .isEqualTo("in\n");
    assertThat(ctx.display(ctx.resolve("dir/in.txt"))).isEqualTo("dir/in.txt");
  }

  @Test
  void grepAndGlobOverTheProjectNeverReadThroughALinkLeadingOut() throws Exception {
    assertThat(new GrepTool().execute(args("{\"pattern\":\"SECRET\"}"), ctx).output())
        .isEqualTo("no match for SECRET in .");
    assertThat(new GrepTool().execute(args("{\"pattern\":\"^in$\"}"), ctx).output())
        .isEqualTo("dir/in.txt:1: in\n"); // not again through inner_link: links are not walked
    assertThat(new GlobTool().execute(args("{\"pattern\":\"**/secret.txt\"}"), ctx).output())
        .startsWith("no file matches");
  }

  @Test
  void theLoopAnswersEachEscapeAsAToolErrorAndGoesOn() throws Exception {
    List<String> paths = new ArrayList<>();
    escapes().forEach(a -> paths.add(path((String) a.get()[0])));
    ScriptedLlmClient.Builder script = ScriptedLlmClient.builder();
    for (String p : paths) {
      script.reply(reply().toolCall("read_file", "{\"path\":\"" + p + "\"}")
          .toolCall("write_file", "{\"path\":\"" + p + "\",\"content\":\"pwned\"}").build());
    }
    script.reply(reply().text("I cannot leave the project.").build());
    ScriptedLlmClient llm = script.build();
    RecordingListener listener = new RecordingListener();

    AgentOutcome outcome = AgentLoop.builder().llmClient(llm).build()
        .start(AgentRequest.builder(repo.dir(), "m", "read the secret").build(), listener)
        .outcome().get(20, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    assertThat(outcome.toolCalls()).hasSize(2 * paths.size());
    assertThat(outcome.toolCalls()).extracting(ToolCall::response)
        .allMatch(r -> r.startsWith("Error: path refused: "));
    assertThat(listener.events).filteredOn(e -> e.startsWith("end ")).allMatch(e ->
        e.endsWith(" failed"));
    assertOutsideUntouched();
  }

  private void assertOutsideUntouched() throws Exception {
    assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("TOP SECRET\n");
    try (Stream<Path> files = Files.list(outside)) {
      assertThat(files).containsExactly(outside.resolve("secret.txt"));
    }
  }
}
