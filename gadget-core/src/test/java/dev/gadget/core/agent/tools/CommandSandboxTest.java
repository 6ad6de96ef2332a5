package dev.gadget.core.agent.tools;

import static dev.gadget.core.agent.tools.FileToolsTest.args;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.agent.TestRepo;
import dev.gadget.core.agent.ToolResult;
import dev.gadget.core.agent.internal.ProjectPaths;
import dev.gadget.core.agent.internal.RunToolContext;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code run_command} in a real bubblewrap sandbox: each escape fails inside it and works only
 * under full access. The files live under {@code target/}, not {@code /tmp} (the sandbox gives
 * commands a private {@code /tmp}), laid out as a drone's workspace: {@code ws/.gadget/} beside
 * the project {@code ws/proj}, and {@code outside/} next to the workspace.
 */
class CommandSandboxTest {
  Path base;
  Path ws;
  Path project;
  Path outside;
  Path homeFile;
  final String marker = "gadget-sandbox-" + UUID.randomUUID();

  @BeforeEach
  void setUp() throws Exception {
    base = Files.createDirectories(Path.of("target", "sandbox-tests", marker)).toRealPath();
    ws = Files.createDirectories(base.resolve("ws"));
    project = Files.createDirectories(ws.resolve("proj"));
    outside = Files.createDirectories(base.resolve("outside"));
    Files.createDirectories(ws.resolve(".gadget"));
    Files.writeString(ws.resolve(".gadget/work-order.json"), "{\"secret\":\"order\"}");
    Files.writeString(ws.resolve("other-project.txt"), "another project's file");
    homeFile = Path.of(System.getProperty("user.home"), "." + marker);
    Files.writeString(homeFile, "home secret");
    assertThat(CommandSandbox.of(SandboxPolicy.WORKSPACE_WRITE).problem())
        .as("bubblewrap must work here (./test.sh installs it)").isEmpty();
  }

  @AfterEach
  void tearDown() throws Exception {
    killMarked();
    Files.deleteIfExists(homeFile);
    try (Stream<Path> walk = Files.walk(base)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  private RunToolContext context(SandboxPolicy policy) throws IOException {
    CommandSandbox sandbox = policy == SandboxPolicy.FULL_ACCESS ? CommandSandbox.none()
        : CommandSandbox.builder(policy).hide(ws).build();
    return new RunToolContext(new ProjectPaths(project), sandbox);
  }

  private ToolResult run(SandboxPolicy policy, String command) throws Exception {
    String json = "{\"command\":" + new com.fasterxml.jackson.databind.ObjectMapper()
        .writeValueAsString(command) + "}";
    return new RunCommandTool().execute(args(json), context(policy));
  }

  @ParameterizedTest
  @EnumSource(SandboxPolicy.class)
  void writingInsideTheProjectNeedsWorkspaceWrite(SandboxPolicy policy) throws Exception {
    ToolResult r = run(policy, "echo made > made.txt && cat made.txt");
    assertThat(r.error()).isEqualTo(policy == SandboxPolicy.READ_ONLY);
    assertThat(Files.exists(project.resolve("made.txt")))
        .isEqualTo(policy != SandboxPolicy.READ_ONLY);
    if (policy == SandboxPolicy.READ_ONLY) {
      assertThat(r.output()).contains("Read-only file system");
    }
  }

  @ParameterizedTest
  @EnumSource(SandboxPolicy.class)
  void gitsOwnDirectoryIsReadOnlyInsideTheSandbox(SandboxPolicy policy) throws Exception {
    TestRepo.gitIn(project, "init", "-q");
    String config = Files.readString(project.resolve(".git/config"));
    ToolResult r = run(policy, "git config core.fsmonitor 'touch pwned'; "
        + "echo x > .git/hooks/pre-commit; mv .git .git-moved; rm -rf .git; "
        + "git status --porcelain >/dev/null && echo status-ok");
    boolean full = policy == SandboxPolicy.FULL_ACCESS;
    if (!full) {
      assertThat(r.output()).contains("status-ok"); // reading works
      assertThat(Files.readString(project.resolve(".git/config"))).isEqualTo(config);
      assertThat(project.resolve(".git/hooks/pre-commit")).doesNotExist();
    } else {
      assertThat(project.resolve(".git")).doesNotExist(); // full access: it is the user's
    }
  }

  @Test
  void aProjectWhoseGitIsASymbolicLinkRunsNoCommandInASandbox() throws Exception {
    Path repo = Files.createDirectories(base.resolve("elsewhere.git"));
    Files.createSymbolicLink(project.resolve(".git"), repo);
    assertThatThrownBy(() -> run(SandboxPolicy.WORKSPACE_WRITE, "echo ran > ran.txt"))
        .isInstanceOf(dev.gadget.core.agent.ToolException.class)
        .hasMessage("commands are refused: the project's .git is a symbolic link, which the "
            + "sandbox cannot keep read-only; make it a directory (or a .git file)");
    assertThat(project.resolve("ran.txt")).doesNotExist();
  }

  @ParameterizedTest
  @EnumSource(SandboxPolicy.class)
  void writingOutsideTheProjectWorksOnlyUnderFullAccess(SandboxPolicy policy) throws Exception {
    Path target = outside.resolve("escaped.txt");
    ToolResult r = run(policy, "echo escaped > " + target);
    boolean full = policy == SandboxPolicy.FULL_ACCESS;
    assertThat(r.error()).isEqualTo(!full);
    assertThat(Files.exists(target)).isEqualTo(full);
    if (!full) {
      // read-only where the path is seen; hidden (no such directory) where it lies under /tmp,
      // which a sandbox replaces with a private one (a checkout under /tmp)
      assertThat(r.output()).containsAnyOf("Read-only file system", "Directory nonexistent",
          "No such file or directory");
    }
    // The workspace around the project is hidden, so it cannot be written either (a project
    // under /tmp lies in the sandbox's private /tmp: the write lands there and goes with it).
    ToolResult sibling = run(policy, "echo escaped > ../sibling.txt");
    if (!ws.toAbsolutePath().startsWith("/tmp")) {
      assertThat(sibling.error()).isEqualTo(!full);
    }
    assertThat(Files.exists(ws.resolve("sibling.txt"))).isEqualTo(full);
  }

  @ParameterizedTest
  @EnumSource(SandboxPolicy.class)
  void theHomeDirectoryIsHiddenUnlessFullAccess(SandboxPolicy policy) throws Exception {
    ToolResult r = run(policy, "cat " + homeFile);
    boolean full = policy == SandboxPolicy.FULL_ACCESS;
    assertThat(r.error()).isEqualTo(!full);
    assertThat(r.output().contains("home secret")).isEqualTo(full);
    ToolResult write = run(policy, "echo x > " + homeFile.getParent().resolve(marker + ".w"));
    assertThat(write.error()).isEqualTo(!full);
    Files.deleteIfExists(homeFile.getParent().resolve(marker + ".w"));
  }

  @ParameterizedTest
  @EnumSource(SandboxPolicy.class)
  void theWorkOrderAndOtherProjectsAreHiddenUnlessFullAccess(SandboxPolicy policy)
      throws Exception {
    boolean full = policy == SandboxPolicy.FULL_ACCESS;
    ToolResult order = run(policy, "cat ../.gadget/work-order.json");
    assertThat(order.error()).isEqualTo(!full);
    assertThat(order.output().contains("\"secret\"")).isEqualTo(full);
    ToolResult other = run(policy, "cat " + ws.resolve("other-project.txt"));
    assertThat(other.output().contains("another project")).isEqualTo(full);
    // A .gadget directory inside the project (a library user's) is hidden too.
    Files.createDirectories(project.resolve(".gadget"));
    Files.writeString(project.resolve(".gadget/state.json"), "inner secret");
    ToolResult inner = run(policy, "cat .gadget/state.json; echo x > .gadget/new.json");
    assertThat(inner.output().contains("inner secret")).isEqualTo(full);
    assertThat(Files.exists(project.resolve(".gadget/new.json"))).isEqualTo(full);
  }

  @ParameterizedTest
  @EnumSource(SandboxPolicy.class)
  void aTcpConnectionToLocalhostWorksOnlyUnderFullAccess(SandboxPolicy policy)
      throws Exception {
    boolean full = policy == SandboxPolicy.FULL_ACCESS;
    try (ServerSocket server = new ServerSocket(0, 5,
        java.net.InetAddress.getLoopbackAddress())) {
      CompletableFuture<Boolean> accepted = CompletableFuture.supplyAsync(() -> {
        try {
          server.setSoTimeout(30_000);
          try (Socket s = server.accept()) {
            return true;
          }
        } catch (SocketTimeoutException e) {
          return false;
        } catch (IOException e) {
          return false;
        }
      });
      ToolResult r = run(policy, "bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + server.getLocalPort()
          + " && echo connected'");
      assertThat(r.error()).isEqualTo(!full);
      assertThat(r.output().contains("connected")).isEqualTo(full);
      if (full) {
        assertThat(accepted.get(30, TimeUnit.SECONDS)).isTrue();
      } else {
        // Nothing reached the server: closing it ends the accept without a connection.
        server.close();
        assertThat(accepted.get(30, TimeUnit.SECONDS)).isFalse();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(SandboxPolicy.class)
  void aChildThatLeavesItsSessionDiesWithTheCommandUnlessFullAccess(SandboxPolicy policy)
      throws Exception {
    boolean full = policy == SandboxPolicy.FULL_ACCESS;
    ToolResult r = run(policy, "setsid -f sh -c 'sleep 300; : " + marker + "' >/dev/null 2>&1; "
        + "echo started");
    assertThat(r.output()).contains("started");
    if (full) {
      // Without a sandbox a daemon escapes the process tree (docs/AGENT.md says so).
      TestRepo.await("the escaped child to be seen", 20, () -> !marked().isEmpty());
    } else {
      TestRepo.await("every process of the sandbox to be gone", 20, () -> marked().isEmpty());
    }
  }

  @Test
  void aBoundFileLiesOverTheProjectsReadOnlyAndAWritableOneTakesWrites() throws Exception {
    Files.writeString(project.resolve("run.sh"), "echo real\n");
    Path over = Files.writeString(outside.resolve("over.sh"), "echo bound\n");
    Path log = Files.writeString(outside.resolve("log"), "");
    CommandSandbox sandbox = CommandSandbox.builder(SandboxPolicy.WORKSPACE_WRITE).hide(ws)
        .bind(project.resolve("run.sh"), Path.of("/tmp/.x/real.sh"), false)
        .bind(over, project.resolve("run.sh"), false)
        .bind(log, Path.of("/tmp/.x/log"), true).build();
    ToolResult r = new RunCommandTool().execute(args("{\"command\":\"sh run.sh; sh "
        + "/tmp/.x/real.sh; echo noted >> /tmp/.x/log; echo no > run.sh || echo refused\"}"),
        new RunToolContext(new ProjectPaths(project), sandbox));
    assertThat(r.output()).contains("bound\nreal\n").contains("refused");
    assertThat(log).hasContent("noted");
    assertThat(project.resolve("run.sh")).hasContent("echo real"); // the project's file as was
    assertThat(sandbox.newBuilder().build().wrapper(project)).contains("/tmp/.x/log");
  }

  @Test
  void aCancelledCommandTakesTheWholeSandboxWithIt() throws Exception {
    RunToolContext ctx = context(SandboxPolicy.WORKSPACE_WRITE);
    CompletableFuture<ToolResult> running = CompletableFuture.supplyAsync(() -> {
      try {
        return new RunCommandTool().execute(args("{\"command\":\"setsid -f sh -c 'sleep 300; : "
            + marker + "'; sh -c 'sleep 300; : " + marker + "'\"}"), ctx);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    TestRepo.await("both sandboxed processes to run", 20, () -> marked().size() >= 2);
    ctx.cancel();
    assertThat(running.get(30, TimeUnit.SECONDS).output()).startsWith("cancelled");
    TestRepo.await("every process of the sandbox to be gone", 20, () -> marked().isEmpty());
  }

  @Test
  void aMissingBubblewrapRefusesCommandsWithAClearMessage() throws Exception {
    CommandSandbox missing = CommandSandbox.builder(SandboxPolicy.WORKSPACE_WRITE)
        .bwrap("/nonexistent/bwrap").build();
    assertThat(missing.problem()).hasValueSatisfying(p ->
        assertThat(p).contains("bubblewrap (/nonexistent/bwrap) is not installed")
            .contains("apt-get install bubblewrap"));
    RunToolContext ctx = new RunToolContext(new ProjectPaths(project), missing);
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> new RunCommandTool()
        .execute(args("{\"command\":\"echo ran > ran.txt\"}"), ctx)))
        .hasMessageStartingWith("commands are refused: bubblewrap (/nonexistent/bwrap) is not "
            + "installed");
    assertThat(Files.exists(project.resolve("ran.txt"))).isFalse();
    assertThat(CommandSandbox.none().problem()).isEmpty();
  }

  @Test
  void policiesHaveWireNames() {
    assertThat(SandboxPolicy.fromWireName("workspace-write"))
        .isEqualTo(SandboxPolicy.WORKSPACE_WRITE);
    assertThat(SandboxPolicy.FULL_ACCESS.wireName()).isEqualTo("full-access");
    assertThatIllegalArgumentException().isThrownBy(() -> SandboxPolicy.fromWireName("open"))
        .withMessage("no sandbox policy \"open\"; the policies are read-only, workspace-write "
            + "and full-access");
  }

  private List<ProcessHandle> marked() {
    return ProcessHandle.allProcesses().filter(p -> p.isAlive() && p.info().commandLine()
        .map(c -> c.contains(marker)).orElse(false)).toList();
  }

  private void killMarked() {
    marked().forEach(ProcessHandle::destroyForcibly);
  }
}
