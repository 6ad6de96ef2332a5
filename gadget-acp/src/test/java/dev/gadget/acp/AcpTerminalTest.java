package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** run_command in the editor's terminal when it offers one (real processes on the editor's side). */
class AcpTerminalTest {
  @TempDir Path project;

  @Test
  void aCommandRunsInTheEditorsTerminalWhichTheToolCallEmbeds() throws Exception {
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.terminal = new RealTerminals();
    try (AcpClientHarness acp = new AcpClientHarness(editor)) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "run echo from-the-terminal; pwd; exit 3"))
          .isEqualTo(AcpSchema.StopReason.END_TURN);
      String dir = project.toRealPath().toString();
      assertThat(Updates.lines(acp.wireUpdates())).containsExactly(
          "tool_call execute in_progress Run `echo from-the-terminal; pwd; exit 3`",
          "update terminal",
          "update failed terminal",
          "message");
      assertThat(Updates.message(acp.wireUpdates()))
          .isEqualTo("The command said: Error: exit code: 3\nfrom-the-terminal\n" + dir);
      assertThat(editor.terminal.calls).containsExactly("create term-1",
          "wait_for_exit term-1", "output term-1", "release term-1");
      AcpSchema.CreateTerminalRequest created = editor.terminal.created.get(0);
      assertThat(created.sessionId()).isEqualTo(session);
      assertThat(created.command()).isEqualTo("/bin/sh");
      assertThat(created.args()).containsExactly("-c", "echo from-the-terminal; pwd; exit 3");
      assertThat(created.cwd()).isEqualTo(dir);
      assertThat(created.outputByteLimit()).isEqualTo(30_000L);
      acp.awaitUpdate(u -> u instanceof AcpSchema.ToolCallUpdateNotification t
          && t.content() != null && t.content().stream().anyMatch(c ->
              c instanceof AcpSchema.ToolCallTerminal term && term.terminalId().equals("term-1")));
    }
  }

  @Test
  void cancelKillsTheCommandInTheEditorsTerminalAndReleasesIt() throws Exception {
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.terminal = new RealTerminals();
    try (AcpClientHarness acp = new AcpClientHarness(editor)) {
      String session = acp.newSession(project);
      CompletableFuture<AcpSchema.StopReason> stop =
          CompletableFuture.supplyAsync(() -> acp.prompt(session, "run sleep 60"));
      acp.awaitWire(u -> "update terminal".equals(Updates.line(u)));
      awaitCall(editor.terminal, "wait_for_exit term-1");
      Instant cancelled = Instant.now();
      acp.client.cancel(new AcpSchema.CancelNotification(session));
      assertThat(stop.get(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(AcpSchema.StopReason.CANCELLED);
      assertThat(Duration.between(cancelled, Instant.now())).isLessThan(Duration.ofSeconds(5));
      awaitCall(editor.terminal, "release term-1");
      awaitCall(editor.terminal, "kill term-1");
      // the agent's order (the SDK's client may run its handlers in another)
      List<String> sent = acp.wireMessages().stream().map(m -> m.path("method").asText())
          .filter(m -> m.startsWith("terminal/")).toList();
      assertThat(sent).containsExactly("terminal/create", "terminal/wait_for_exit",
          "terminal/kill", "terminal/release");
      Process sleep = editor.terminal.terminals.get("term-1").process;
      assertThat(sleep.onExit().get(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS)
          .isAlive()).isFalse();
      // the session takes the next prompt
      assertThat(acp.prompt(session, "again")).isEqualTo(AcpSchema.StopReason.END_TURN);
    }
  }

  @Test
  void toldNotToUseTheEditorsTerminalTheAgentRunsCommandsInItsSandbox() throws Exception {
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.terminal = new RealTerminals();
    editor.noEditorTerminal = true;
    try (AcpClientHarness acp = new AcpClientHarness(editor)) {
      String session = acp.newSession(project);
      // the sandbox hides the home directory: what is there is not what the editor's shell sees
      assertThat(acp.prompt(session, "run ls -A \"$HOME\" | wc -l"))
          .isEqualTo(AcpSchema.StopReason.END_TURN);
      assertThat(Updates.lines(acp.wireUpdates())).containsExactly(
          "tool_call execute in_progress Run `ls -A \"$HOME\" | wc -l`",
          "update completed",
          "message");
      assertThat(Updates.message(acp.wireUpdates())).isEqualTo("The command said: exit code: 0\n0");
      assertThat(editor.terminal.calls).isEmpty();
    }
  }

  private static void awaitCall(RealTerminals terminal, String call) throws Exception {
    Instant end = Instant.now().plus(AcpClientHarness.DEADLINE);
    while (!terminal.calls.contains(call)) {
      if (Instant.now().isAfter(end)) {
        throw new AssertionError("the agent never sent " + call + "; it sent " + terminal.calls);
      }
      synchronized (terminal) {
        terminal.wait(10);
      }
    }
  }

}
