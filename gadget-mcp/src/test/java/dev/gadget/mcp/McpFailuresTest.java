package dev.gadget.mcp;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.agent.AgentOutcome;
import dev.gadget.core.llm.ScriptedLlmClient;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the model and the person see when an MCP server fails, and that nothing is left over. */
class McpFailuresTest {
  @TempDir Path project;
  @TempDir Path elsewhere;

  @Test
  void anErrorResultOfTheServerReachesTheModelAsAFailedCallAndTheTurnGoesOn() throws Exception {
    Files.writeString(elsewhere.resolve("secret.txt"), "not for you\n");
    try (McpToolset mcp = McpToolset.builder()
        .server(NodeServers.filesystem("fs", project.toRealPath())).start()) {
      ScriptedLlmClient llm = ScriptedLlmClient.of(
          reply().toolCall("fs__read_text_file",
              "{\"path\":\"" + elsewhere.toRealPath().resolve("secret.txt") + "\"}").build(),
          reply().text("I may not read it.").build());

      OneTurn turn = OneTurn.run(mcp, project, llm);

      assertThat(turn.outcome().status()).isEqualTo(AgentOutcome.Status.FINISHED);
      assertThat(turn.successes()).containsExactly(false);
      assertThat(turn.toolResult().content())
          .contains("Error: ")
          .containsIgnoringCase("access denied")
          .doesNotContain("not for you");
    }
  }

  @Test
  void aServerKilledMidRunBecomesAnErrorInWordsAndTheTurnGoesOn() throws Exception {
    Files.writeString(project.resolve("a.txt"), "a\n");
    try (McpToolset mcp = McpToolset.builder()
        .server(NodeServers.filesystem("fs", project.toRealPath())).start()) {
      List<ProcessHandle> processes = mcp.processes("fs");
      assertThat(processes).isNotEmpty().allMatch(ProcessHandle::isAlive);
      for (ProcessHandle process : processes) {
        process.destroyForcibly();   // kill -9
        process.onExit().get(30, TimeUnit.SECONDS);
      }
      ScriptedLlmClient llm = ScriptedLlmClient.of(
          reply().toolCall("fs__read_text_file",
              "{\"path\":\"" + project.toRealPath().resolve("a.txt") + "\"}").build(),
          reply().text("The server is gone.").build());

      OneTurn turn = OneTurn.run(mcp, project, llm);

      assertThat(turn.outcome().status()).isEqualTo(AgentOutcome.Status.FINISHED);
      assertThat(turn.successes()).containsExactly(false);
      assertThat(turn.toolResult().content()).startsWith("Error: the MCP server \"fs\" could not "
          + "run \"read_text_file\": the server is no longer running");
    }
  }

  @Test
  void closingEndsEveryServerProcess() throws Exception {
    McpToolset mcp = McpToolset.builder()
        .server(NodeServers.filesystem("fs", project.toRealPath()))
        .server(NodeServers.everythingStdio("everything"))
        .start();
    List<ProcessHandle> processes = new java.util.ArrayList<>(mcp.processes("fs"));
    processes.addAll(mcp.processes("everything"));
    assertThat(processes).hasSize(2).allMatch(ProcessHandle::isAlive);

    mcp.close();

    for (ProcessHandle process : processes) {
      process.onExit().get(30, TimeUnit.SECONDS);
    }
    assertThat(ProcessHandle.current().descendants()
        .map(p -> p.info().commandLine().orElse(""))
        .filter(line -> line.contains(NodeServers.NODE_MODULES.toString())))
        .isEmpty();
  }

  @Test
  void aServerThatCannotStartIsNamedWithWhatItSaidAndTheOthersAreClosed() throws Exception {
    McpToolset.Builder builder = McpToolset.builder()
        .server(NodeServers.filesystem("fs", project.toRealPath()))
        .server(McpServerConfig.stdio("broken", List.of("node", "-e",
            "console.error('cannot find the config file'); process.exit(3)")))
        .timeout(Duration.ofSeconds(20));

    assertThatThrownBy(builder::start)
        .isInstanceOf(McpException.class)
        .hasMessageStartingWith("could not start the MCP server \"broken\" (node -e ")
        .hasMessageContaining("cannot find the config file");
    assertThat(ProcessHandle.current().descendants()
        .map(p -> p.info().commandLine().orElse(""))
        .filter(line -> line.contains(NodeServers.NODE_MODULES.toString())))
        .isEmpty();
  }

  @Test
  void aProgramThatDoesNotExistIsNamed() {
    assertThatThrownBy(McpToolset.builder()
        .server(McpServerConfig.stdio("ghost", List.of("no-such-mcp-server-program")))::start)
        .isInstanceOf(McpException.class)
        .hasMessage("could not start the MCP server \"ghost\" "
            + "(no-such-mcp-server-program): its program \"no-such-mcp-server-program\" is "
            + "not on the PATH");
  }

  @Test
  void aProgramThatDoesNotExistIsNamedAtOnceWithAWorkingDirectoryToo(@TempDir Path dir) {
    // said before starting it, not "it did not answer within 60 s" after the timeout
    assertThatThrownBy(McpToolset.builder().timeout(Duration.ofSeconds(60))
        .server(McpServerConfig.stdio("ghost", List.of("./not-here", "--stdio"))
            .withWorkingDir(dir))::start)
        .isInstanceOf(McpException.class)
        .hasMessageEndingWith("its program " + dir.resolve("./not-here")
            + " is not an executable file");
  }

  @Test
  void anHttpServerThatIsNotThereIsNamed() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    URI url = URI.create("http://127.0.0.1:" + port + "/mcp");
    assertThatThrownBy(McpToolset.builder().server(McpServerConfig.http("remote", url))
        .timeout(Duration.ofSeconds(10))::start)
        .isInstanceOf(McpException.class)
        .hasMessage("could not start the MCP server \"remote\" (" + url + "): nothing answers at "
            + url);
  }
}
