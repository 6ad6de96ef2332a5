package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Calls the approval policy holds back are asked of the editor. */
class AcpPermissionTest {
  @TempDir Path project;

  private static AcpClientHarness.Editor answering(String optionId) {
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.permission = r -> new AcpSchema.PermissionSelected(optionId);
    return editor;
  }

  @Test
  void aGrantedCommandRunsAndTheEditorSawItFirst() throws Exception {
    try (AcpClientHarness acp = new AcpClientHarness(answering("allow_once"), "commands")) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "run echo granted-run")).isEqualTo(
          AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().contains("granted-run"));
      assertThat(Updates.lines(acp.wireUpdates())).containsExactly(
          "tool_call execute pending Run `echo granted-run`",
          "update in_progress",
          "update completed",
          "message");
      assertThat(Updates.message(acp.wireUpdates())).startsWith("The command said:")
          .contains("granted-run");
      assertThat(acp.permissionRequests).singleElement().satisfies(r -> {
        assertThat(r.sessionId()).isEqualTo(session);
        assertThat(r.toolCall().title()).isEqualTo("Run `echo granted-run`");
        assertThat(r.toolCall().kind()).isEqualTo(AcpSchema.ToolKind.EXECUTE);
        assertThat(r.options()).extracting(AcpSchema.PermissionOption::kind).containsExactly(
            AcpSchema.PermissionOptionKind.ALLOW_ONCE, AcpSchema.PermissionOptionKind.ALLOW_ALWAYS,
            AcpSchema.PermissionOptionKind.REJECT_ONCE);
      });
    }
  }

  @Test
  void theApprovalPolicyDecidesWhichCallsAsk() throws Exception {
    for (String policy : List.of("never", "commands", "commands-and-writes")) {
      java.nio.file.Files.writeString(project.resolve("hello.txt"), "Hello from disk\n");
      try (AcpClientHarness acp = new AcpClientHarness(answering("allow_once"), policy)) {
        String session = acp.newSession(project);
        assertThat(acp.prompt(session, "work")).isEqualTo(AcpSchema.StopReason.END_TURN);
        List<String> asked = acp.permissionRequests.stream()
            .map(r -> r.toolCall().kind() + " " + r.toolCall().title()).toList();
        assertThat(asked).as(policy).isEqualTo(switch (policy) {
          case "never" -> List.of();
          case "commands" -> List.of("EXECUTE Run `cat hello.txt`");
          default -> List.of("EDIT Edit hello.txt", "EXECUTE Run `cat hello.txt`");
        });
      }
    }
  }

  @Test
  void aRejectedCommandDoesNotRunAndTheModelIsTold() throws Exception {
    try (AcpClientHarness acp = new AcpClientHarness(answering("reject_once"), "commands")) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "run echo never-printed")).isEqualTo(
          AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().contains("denied"));
      assertThat(Updates.lines(acp.wireUpdates())).containsExactly(
          "tool_call execute pending Run `echo never-printed`",
          "update in_progress",
          "update failed",
          "message");
      assertThat(Updates.message(acp.wireUpdates())).contains("denied: the user rejected it")
          .doesNotContain("never-printed\n");
    }
  }

  @Test
  void aCancelledPermissionRequestDenies() throws Exception {
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.permission = r -> new AcpSchema.PermissionCancelled();
    try (AcpClientHarness acp = new AcpClientHarness(editor, "commands")) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "run echo cancelled-run")).isEqualTo(
          AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().contains("denied"));
      assertThat(Updates.message(acp.wireUpdates()))
          .contains("denied: the permission request was cancelled");
    }
  }

  @Test
  void allowAlwaysIsRememberedForTheSession() throws Exception {
    try (AcpClientHarness acp = new AcpClientHarness(answering("allow_always"), "commands")) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "run echo one")).isEqualTo(AcpSchema.StopReason.END_TURN);
      assertThat(acp.prompt(session, "run echo two")).isEqualTo(AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().contains("two"));
      assertThat(acp.permissionRequests).hasSize(1);
      assertThat(Updates.lines(acp.wireUpdates())).containsExactly(
          "tool_call execute pending Run `echo one`", "update in_progress", "update completed",
          "message",
          "tool_call execute in_progress Run `echo two`", "update completed", "message");
      // another program is asked again
      assertThat(acp.prompt(session, "run pwd")).isEqualTo(AcpSchema.StopReason.END_TURN);
      assertThat(acp.permissionRequests).hasSize(2);
      // and a new session starts with nothing allowed
      String other = acp.newSession(project);
      assertThat(acp.prompt(other, "run echo three")).isEqualTo(AcpSchema.StopReason.END_TURN);
      assertThat(acp.permissionRequests).hasSize(3);
      assertThat(List.of(session, other)).doesNotHaveDuplicates();
    }
  }
}
