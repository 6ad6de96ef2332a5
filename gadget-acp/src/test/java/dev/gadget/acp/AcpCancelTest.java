package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
