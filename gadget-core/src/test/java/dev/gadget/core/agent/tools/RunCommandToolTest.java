package dev.gadget.core.agent.tools;

import static dev.gadget.core.agent.tools.FileToolsTest.args;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run_command} called directly. */
class RunCommandToolTest {
  @TempDir Path project;
  RunToolContext ctx;

  @BeforeEach
  void setUp() throws Exception {
    Files.writeString(project.resolve("f.txt"), "hello\n");
    ctx = new RunToolContext(new ProjectPaths(project));
  }

  @Test
  void runsInTheProjectDirectoryAndReportsTheExitCode() throws Exception {
    RunCommandTool tool = new RunCommandTool();
    assertThat(tool.execute(args("{\"command\":\"cat f.txt; pwd\"}"), ctx))
        .isEqualTo(ToolResult.ok("exit code: 0\nhello\n" + project.toRealPath() + "\n"));
    ToolResult failed = tool.execute(args("{\"command\":\"echo oops >&2; exit 3\"}"), ctx);
    assertThat(failed).isEqualTo(ToolResult.error("exit code: 3\noops\n"));
    assertThat(failed.forModel()).isEqualTo("Error: exit code: 3\noops\n");
    assertThat(tool.execute(args("{\"command\":\"true\"}"), ctx).output())
        .isEqualTo("exit code: 0\n(no output)");
  }

  @Test
  void readsNoInputAndUsesNoPager() throws Exception {
    assertThat(new RunCommandTool().execute(
        args("{\"command\":\"cat; echo \\\"[$PAGER]\\\"\"}"), ctx).output())
        .isEqualTo("exit code: 0\n[cat]\n");
  }

  @Test
  void longOutputKeepsItsHeadAndTail() throws Exception {
    RunCommandTool tool = new RunCommandTool(Duration.ofSeconds(20), Duration.ofSeconds(20), 200);
    String out = tool.execute(args("{\"command\":\"seq 1 20000\"}"), ctx).output();
    assertThat(out).startsWith("exit code: 0\n1\n2\n3\n")
        .endsWith("19998\n19999\n20000\n")
        .contains("bytes of output left out …]");
    int total = 0;
    for (int i = 1; i <= 20000; i++) {
      total += String.valueOf(i).length() + 1;
    }
    assertThat(out).contains("[… " + (total - 200) + " bytes of output left out …]");
    assertThat(out.length()).isLessThan(400);
  }

  @Test
  void badArgumentsAreErrorsForTheModel() {
    RunCommandTool tool = new RunCommandTool();
    assertThatThrownBy(() -> tool.execute(args("{\"command\":\"  \"}"), ctx))
        .hasMessage("command is empty");
    assertThatThrownBy(() -> tool.execute(args("{\"command\":\"true\",\"timeout_seconds\":0}"),
        ctx)).hasMessage("timeout_seconds must be 1 or more");
    assertThatThrownBy(() -> tool.execute(args("{}"), ctx))
        .hasMessage("missing required argument \"command\" (a string)");
  }

  @Test
  void theTimeoutAskedForIsCappedAtTheMaximum() throws Exception {
    RunCommandTool tool = new RunCommandTool(Duration.ofSeconds(1), Duration.ofSeconds(1), 1000);
    long t0 = System.nanoTime();
    ToolResult r = tool.execute(args("{\"command\":\"sleep 30\",\"timeout_seconds\":600}"), ctx);
    assertThat(r.output()).startsWith("timed out after 1 s");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void aCancelledContextStopsTheCommandAtOnce() throws Exception {
    ctx.cancel();
    assertThatThrownBy(() -> new RunCommandTool().execute(args("{\"command\":\"touch x\"}"), ctx))
        .isInstanceOf(InterruptedException.class);
    assertThat(project.resolve("x")).doesNotExist();
  }

  @Test
  void settingsAreValidated() {
    assertThatIllegalArgumentException().isThrownBy(
        () -> new RunCommandTool(Duration.ZERO, Duration.ofSeconds(1), 1000));
    assertThatIllegalArgumentException().isThrownBy(
        () -> new RunCommandTool(Duration.ofSeconds(2), Duration.ofSeconds(1), 1000));
    assertThatIllegalArgumentException().isThrownBy(
        () -> new RunCommandTool(Duration.ofSeconds(1), Duration.ofSeconds(1), 10));
  }
}
