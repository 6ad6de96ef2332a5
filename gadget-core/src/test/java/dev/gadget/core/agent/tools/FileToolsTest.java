package dev.gadget.core.agent.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.ToolException;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The built-in file tools, called directly. */
class FileToolsTest {
  @TempDir Path tmp;
  Path project;
  RunToolContext ctx;

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(tmp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "one\ntwo\nthree\nfour\nfive\n");
    Files.createDirectories(project.resolve("src/main"));
    Files.writeString(project.resolve("src/main/App.java"), "class App {\n  int x = 1;\n}\n");
    Files.writeString(project.resolve("src/Util.java"), "class Util { int x = 1; }\n");
    Files.createDirectories(project.resolve(".git"));
    Files.writeString(project.resolve(".git/config"), "class InGit\n");
    ctx = new RunToolContext(new ProjectPaths(project));
  }

  static JsonNode args(String json) {
    try {
      return GadgetJson.mapper().readTree(json);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  private ToolResult run(Tool tool, String json) throws Exception {
    return tool.execute(args(json), ctx);
  }

  @Test
  void aReadOnlySandboxRefusesTheFileToolsWritesInWords() throws Exception {
    RunToolContext readOnly = new RunToolContext(new ProjectPaths(project),
        CommandSandbox.of(SandboxPolicy.READ_ONLY));
    assertThat(new ReadFileTool().execute(args("{\"path\":\"a.txt\"}"), readOnly).output())
        .contains("three");
    assertThatThrownBy(() -> new WriteFileTool().execute(
        args("{\"path\":\"new.txt\",\"content\":\"x\"}"), readOnly))
        .isInstanceOf(ToolException.class).hasMessage("write_file refused: this drone is "
            + "read-only (sandbox policy read-only), so neither the file tools nor commands may "
            + "change the project; say what you would change instead");
    assertThatThrownBy(() -> new EditFileTool().execute(
        args("{\"path\":\"a.txt\",\"old_text\":\"two\",\"new_text\":\"2\"}"), readOnly))
        .isInstanceOf(ToolException.class).hasMessageStartingWith("edit_file refused: this "
            + "drone is read-only");
    assertThat(project.resolve("new.txt")).doesNotExist();
    assertThat(Files.readString(project.resolve("a.txt"))).contains("two");
  }

  @Test
  void readFileReadsWholeFilesAndLineRanges() throws Exception {
    ReadFileTool read = new ReadFileTool();
    assertThat(run(read, "{\"path\":\"a.txt\"}")).isEqualTo(
        ToolResult.ok("one\ntwo\nthree\nfour\nfive\n"));
    assertThat(run(read, "{\"path\":\"a.txt\",\"start_line\":2,\"end_line\":3}").output())
        .isEqualTo("[a.txt: lines 2-3 of 5]\ntwo\nthree\n");
    assertThat(run(read, "{\"path\":\"a.txt\",\"start_line\":\"4\"}").output())
        .isEqualTo("[a.txt: lines 4-5 of 5]\nfour\nfive\n");
    assertThat(run(read, "{\"path\":\"a.txt\",\"end_line\":99}").output())
        .startsWith("[a.txt: lines 1-5 of 5]\n");
    assertThatThrownBy(() -> run(read, "{\"path\":\"a.txt\",\"start_line\":9}"))
        .isInstanceOf(ToolException.class).hasMessage("start_line 9 is past the end: a.txt has 5 lines");
    assertThatThrownBy(() -> run(read, "{\"path\":\"a.txt\",\"start_line\":3,\"end_line\":2}"))
        .hasMessage("end_line 2 is before start_line 3");
    assertThatThrownBy(() -> run(read, "{\"path\":\"a.txt\",\"start_line\":\"x\"}"))
        .hasMessage("argument \"start_line\" must be an integer");
    assertThatThrownBy(() -> run(read, "{}"))
        .hasMessage("missing required argument \"path\" (a string)");
    assertThatThrownBy(() -> run(read, "{\"path\":\"src\"}"))
        .hasMessage("src is a directory; use list_dir");
    assertThatThrownBy(() -> run(read, "{\"path\":\"nope.txt\"}"))
        .hasMessage("nope.txt does not exist");
  }

  @Test
  void readFileCapsLongFilesAndRefusesBinaryAndNonUtf8() throws Exception {
    Files.writeString(project.resolve("long.txt"), "0123456789\n".repeat(100));
    assertThat(run(new ReadFileTool(50), "{\"path\":\"long.txt\"}").output())
        .startsWith("0123456789\n0123456789\n")
        .endsWith("[… cut at 50 of 1100 chars: long.txt has 100 lines; read the rest with "
            + "start_line and end_line]");
    Files.write(project.resolve("bin.dat"), new byte[] {1, 2, 0, 3});
    assertThatThrownBy(() -> run(new ReadFileTool(), "{\"path\":\"bin.dat\"}"))
        .hasMessage("bin.dat is a binary file (4 bytes); these tools handle text only");
    Files.write(project.resolve("latin1.txt"), new byte[] {'c', 'a', 'f', (byte) 0xe9});
    assertThatThrownBy(() -> run(new ReadFileTool(), "{\"path\":\"latin1.txt\"}"))
        .hasMessage("latin1.txt is not UTF-8 text; these tools handle UTF-8 text only");
    Files.writeString(project.resolve("empty.txt"), "");
    assertThat(run(new ReadFileTool(), "{\"path\":\"empty.txt\"}").output())
        .isEqualTo("(empty.txt is empty)");
  }

  @Test
  void editFileReplacesOneExactUniqueMatch() throws Exception {
    run(new ReadFileTool(), "{\"path\":\"a.txt\"}");
    ToolResult r = run(new EditFileTool(),
        "{\"path\":\"a.txt\",\"old_text\":\"two\\nthree\\n\",\"new_text\":\"2\\n3\\n3.5\\n\"}");
    assertThat(r).isEqualTo(
        ToolResult.ok("Edited a.txt: replaced 2 lines at line 2 with 3 lines."));
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("one\n2\n3\n3.5\nfour\nfive\n");
    // Its own write counts as seen: a second edit needs no new read.
    run(new EditFileTool(), "{\"path\":\"a.txt\",\"old_text\":\"five\",\"new_text\":\"5\"}");
    assertThat(Files.readString(project.resolve("a.txt"))).endsWith("four\n5\n");
  }

  @Test
  void editFileRefusesNoMatchAndSeveralMatchesAndLeavesTheFileAlone() throws Exception {
    Files.writeString(project.resolve("b.txt"), "x = 1;\ny = 2;\nx = 1;\n");
    run(new ReadFileTool(), "{\"path\":\"b.txt\"}");
    EditFileTool edit = new EditFileTool();
    assertThatThrownBy(() -> run(edit, "{\"path\":\"b.txt\",\"old_text\":\"z = 3;\","
        + "\"new_text\":\"q\"}"))
        .hasMessage("old_text was not found in b.txt; nothing was changed. Copy it exactly from "
            + "read_file's output: spaces, indentation and line breaks count.");
    assertThatThrownBy(() -> run(edit, "{\"path\":\"b.txt\",\"old_text\":\"x = 1;\","
        + "\"new_text\":\"x = 9;\"}"))
        .hasMessage("old_text occurs 2 times in b.txt; nothing was changed. Include more of "
            + "the surrounding lines so that it occurs exactly once.");
    assertThatThrownBy(() -> run(edit, "{\"path\":\"b.txt\",\"old_text\":\"\","
        + "\"new_text\":\"q\"}")).hasMessageStartingWith("old_text is empty");
    assertThatThrownBy(() -> run(edit, "{\"path\":\"b.txt\",\"old_text\":\"y\","
        + "\"new_text\":\"y\"}")).hasMessageStartingWith("old_text and new_text are the same");
    // Overlapping occurrences count too: "aa" occurs twice in "aaa".
    Files.writeString(project.resolve("c.txt"), "aaa");
    run(new ReadFileTool(), "{\"path\":\"c.txt\"}");
    assertThatThrownBy(() -> run(edit, "{\"path\":\"c.txt\",\"old_text\":\"aa\","
        + "\"new_text\":\"b\"}")).hasMessageStartingWith("old_text occurs 2 times");
    assertThat(Files.readString(project.resolve("b.txt"))).isEqualTo("x = 1;\ny = 2;\nx = 1;\n");
    assertThat(Files.readString(project.resolve("c.txt"))).isEqualTo("aaa");
  }

  @Test
  void editFileRefusesAFileNotReadOrChangedOnDiskSince() throws Exception {
    EditFileTool edit = new EditFileTool();
    String change = "{\"path\":\"a.txt\",\"old_text\":\"one\",\"new_text\":\"1\"}";
    assertThatThrownBy(() -> run(edit, change))
        .hasMessage("edit_file refused: read a.txt with read_file first (it was not read in "
            + "this turn, and the user may have changed it)");

    run(new ReadFileTool(), "{\"path\":\"a.txt\",\"start_line\":1,\"end_line\":1}");
    Files.writeString(project.resolve("a.txt"), "one\nuser was here\n"); // the user edits too
    assertThatThrownBy(() -> run(edit, change))
        .hasMessage("edit_file refused: a.txt changed on disk since you last read it (someone "
            + "else may be editing it). Read it again with read_file, then retry.");
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("one\nuser was here\n");

    run(new ReadFileTool(), "{\"path\":\"a.txt\"}");
    run(edit, change);
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("1\nuser was here\n");
  }

  @Test
  void whatWasReadIsTrackedPerRun() throws Exception {
    run(new ReadFileTool(), "{\"path\":\"a.txt\"}");
    RunToolContext otherRun = new RunToolContext(new ProjectPaths(project));
    assertThatThrownBy(() -> new EditFileTool().execute(
        args("{\"path\":\"a.txt\",\"old_text\":\"one\",\"new_text\":\"1\"}"), otherRun))
        .hasMessageStartingWith("edit_file refused: read a.txt with read_file first");
  }

  @Test
  void editKeepsTheFilePermissions() throws Exception {
    Path script = project.resolve("run.sh");
    Files.writeString(script, "echo hi\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
    run(new ReadFileTool(), "{\"path\":\"run.sh\"}");
    run(new EditFileTool(), "{\"path\":\"run.sh\",\"old_text\":\"hi\",\"new_text\":\"ho\"}");
    assertThat(Files.readString(script)).isEqualTo("echo ho\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(script)))
        .isEqualTo("rwxr-x---");
    try (var files = Files.list(project)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }

  @Test
  void writeFileCreatesDirectoriesAndReplacesOnlyWhatWasRead() throws Exception {
    WriteFileTool write = new WriteFileTool();
    assertThat(run(write, "{\"path\":\"new/dir/n.txt\",\"content\":\"a\\nb\"}").output())
        .isEqualTo("Created new/dir/n.txt (2 lines, 3 bytes)");
    assertThat(Files.readString(project.resolve("new/dir/n.txt"))).isEqualTo("a\nb");
    assertThat(run(write, "{\"path\":\"new/dir/n.txt\",\"content\":\"c\\n\"}").output())
        .isEqualTo("Replaced new/dir/n.txt (1 lines, 2 bytes)");
    assertThatThrownBy(() -> run(write, "{\"path\":\"a.txt\",\"content\":\"gone\"}"))
        .hasMessageStartingWith("write_file refused: read a.txt with read_file first");
    assertThatThrownBy(() -> run(write, "{\"path\":\"src\",\"content\":\"x\"}"))
        .hasMessage("src is a directory");
    assertThatThrownBy(() -> run(write, "{\"path\":\"x.txt\"}"))
        .hasMessage("missing required argument \"content\" (a string)");
    assertThat(Files.readString(project.resolve("a.txt"))).startsWith("one\n");
  }

  @Test
  void listDirListsSortedWithKinds() throws Exception {
    Files.createSymbolicLink(project.resolve("link"), project.resolve("a.txt"));
    assertThat(run(new ListDirTool(), "{}").output())
        .isEqualTo(".git/\na.txt\nlink@\nsrc/\n");
    assertThat(run(new ListDirTool(), "{\"path\":\"src\"}").output())
        .isEqualTo("Util.java\nmain/\n");
    Files.createDirectories(project.resolve("empty"));
    assertThat(run(new ListDirTool(), "{\"path\":\"empty\"}").output())
        .isEqualTo("(empty is empty)");
    assertThatThrownBy(() -> run(new ListDirTool(), "{\"path\":\"a.txt\"}"))
        .hasMessage("a.txt is a file; use read_file");
    assertThatThrownBy(() -> run(new ListDirTool(), "{\"path\":\"nope\"}"))
        .hasMessage("nope does not exist");
  }

  @Test
  void globMatchesAtAnyDepthAndSkipsGit() throws Exception {
    assertThat(run(new GlobTool(), "{\"pattern\":\"**/*.java\"}").output())
        .isEqualTo("src/Util.java\nsrc/main/App.java\n");
    assertThat(run(new GlobTool(), "{\"pattern\":\"*.java\",\"path\":\"src\"}").output())
        .isEqualTo("src/Util.java\n");
    assertThat(run(new GlobTool(), "{\"pattern\":\"**\"}").output())
        .doesNotContain(".git").contains("a.txt");
    assertThat(run(new GlobTool(), "{\"pattern\":\"*.md\"}").output())
        .isEqualTo("no file matches *.md in .");
    assertThatThrownBy(() -> run(new GlobTool(), "{\"pattern\":\"[\"}"))
        .hasMessageStartingWith("invalid glob pattern [");
  }

  @Test
  void grepFindsLinesWithPathAndNumber() throws Exception {
    assertThat(run(new GrepTool(), "{\"pattern\":\"int x\"}").output())
        .isEqualTo("src/Util.java:1: class Util { int x = 1; }\nsrc/main/App.java:2:   int x = 1;\n");
    assertThat(run(new GrepTool(), "{\"pattern\":\"CLASS\",\"ignore_case\":true,"
        + "\"include\":\"App.*\"}").output())
        .isEqualTo("src/main/App.java:1: class App {\n");
    assertThat(run(new GrepTool(), "{\"pattern\":\"three\",\"path\":\"a.txt\"}").output())
        .isEqualTo("a.txt:3: three\n");
    assertThat(run(new GrepTool(), "{\"pattern\":\"InGit\"}").output())
        .isEqualTo("no match for InGit in .");
    assertThatThrownBy(() -> run(new GrepTool(), "{\"pattern\":\"(\"}"))
        .hasMessageStartingWith("invalid regular expression: Unclosed group");
  }

  @Test
  void everyBuiltInToolHasAnObjectSchemaAndADescription() {
    assertThat(CodingTools.all()).extracting(Tool::name).containsExactly("read_file",
        "write_file", "edit_file", "list_dir", "glob", "grep", "run_command", "update_plan");
    for (Tool tool : CodingTools.all()) {
      assertThat(tool.parameters().get("type").asText()).isEqualTo("object");
      assertThat(tool.description()).isNotBlank();
      assertThat(tool.definition().name()).isEqualTo(tool.name());
      tool.parameters().get("required").forEach(r ->
          assertThat(tool.parameters().get("properties").has(r.asText())).isTrue());
    }
  }
}
