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

/** session/cancel stops a turn at once. */
class AcpCancelTest {
  @TempDir Path project;

  @Test
  void cancelMidStreamEndsThePromptCancelled() throws Exception {
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      String session = acp.newSession(project);
      CompletableFuture<AcpSchema.StopReason> stop =
          CompletableFuture.supplyAsync(() -> acp.prompt(session, "slow"));
      acp.awaitWire(u -> u.path("sessionUpdate").asText().equals("agent_message_chunk"));
      Instant cancelled = Instant.now();
      acp.client.cancel(new AcpSchema.CancelNotification(session));
      assertThat(stop.get(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(AcpSchema.StopReason.CANCELLED);
      // 5000 words at 2 ms a word would take 10 s: the turn stopped long before
      assertThat(Duration.between(cancelled, Instant.now())).isLessThan(Duration.ofSeconds(3));
      assertThat(Updates.message(acp.wireUpdates()).length()).isLessThan("word ".length() * 5000);
      // the session takes the next prompt
      assertThat(acp.prompt(session, "again")).isEqualTo(AcpSchema.StopReason.END_TURN);
    }
  }

  @Test
  void cancelKillsTheSandboxedCommandsWholeProcessTree() throws Exception {
    // two sleeps of their own, in the background and in the foreground of the command's shell
    long a = 100_000 + new java.util.Random().nextInt(800_000);
    String child = "sleep " + a;
    String grandchild = "sleep " + (a + 1);
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.noEditorTerminal = true;
    try (AcpClientHarness acp = new AcpClientHarness(editor)) {
      String session = acp.newSession(project);
      CompletableFuture<AcpSchema.StopReason> stop = CompletableFuture.supplyAsync(() ->
          acp.prompt(session, "run sh -c '" + grandchild + "' & " + child + "; wait"));
      awaitProcesses(List.of(child, grandchild), true);
      Instant cancelled = Instant.now();
      acp.client.cancel(new AcpSchema.CancelNotification(session));
      assertThat(stop.get(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(AcpSchema.StopReason.CANCELLED);
      assertThat(Duration.between(cancelled, Instant.now())).isLessThan(Duration.ofSeconds(5));
      awaitProcesses(List.of(child, grandchild), false);
      assertThat(acp.prompt(session, "again")).isEqualTo(AcpSchema.StopReason.END_TURN);
    }
  }

  /** Waits until a process runs each of {@code commands} ({@code running}), or none does. */
  private static void awaitProcesses(List<String> commands, boolean running) throws Exception {
    Instant end = Instant.now().plus(AcpClientHarness.DEADLINE);
    while (true) {
      List<String> seen = ProcessHandle.allProcesses().map(p -> p.info().commandLine().orElse(""))
          .filter(c -> commands.stream().anyMatch(c::endsWith)).toList();
      boolean done = running
          ? commands.stream().allMatch(c -> seen.stream().anyMatch(s -> s.endsWith(c)))
          : seen.isEmpty();
      if (done) {
        return;
      }
      if (Instant.now().isAfter(end)) {
        throw new AssertionError((running ? "not running: " : "still running: ") + commands
            + "; seen " + seen);
      }
      synchronized (commands) {
        commands.wait(20);
      }
    }
  }

  @Test
  void cancelWhileAPermissionIsAskedEndsThePromptCancelled() throws Exception {
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    CompletableFuture<AcpSchema.RequestPermissionOutcome> never = new CompletableFuture<>();
    CompletableFuture<Void> asked = new CompletableFuture<>();
    editor.permission = r -> {
      asked.complete(null);
      try {
        // the editor's person has not answered yet; the turn's cancel answers for them
        return never.get(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS);
      } catch (Exception e) {
        return new AcpSchema.PermissionCancelled();
      }
    };
    try (AcpClientHarness acp = new AcpClientHarness(editor, "commands")) {
      String session = acp.newSession(project);
      CompletableFuture<AcpSchema.StopReason> stop =
          CompletableFuture.supplyAsync(() -> acp.prompt(session, "run echo waiting"));
      asked.get(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS);
      acp.client.cancel(new AcpSchema.CancelNotification(session));
      assertThat(stop.get(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .isEqualTo(AcpSchema.StopReason.CANCELLED);
      never.complete(new AcpSchema.PermissionCancelled());
    }
  }
}
