package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** session/load: a session stored by one agent process, replayed and continued by the next. */
class AcpLoadTest {
  @TempDir Path project;
  @TempDir Path sessions;

  @Test
  void aSessionLoadedInANewProcessReplaysItsHistoryInOrderAndTheModelSeesIt() throws Exception {
    Files.writeString(project.resolve("hello.txt"), "Hello from disk\n");
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.sessions = sessions;
    String id;
    try (AcpClientHarness first = new AcpClientHarness(editor)) {
      assertThat(first.initializeResponse.agentCapabilities().loadSession()).isTrue();
      id = first.newSession(project);
      assertThat(first.prompt(id, "edit")).isEqualTo(AcpSchema.StopReason.END_TURN);
      assertThat(first.prompt(id, "first words")).isEqualTo(AcpSchema.StopReason.END_TURN);
    } // its standard input ends: the process ends
    for (Path stored : List.of(sessions.resolve("sessions"), sessions.resolve("sessions")
        .resolve(id))) {
      assertThat(Files.getPosixFilePermissions(stored)).as("the owner's only: " + stored)
          .doesNotContain(PosixFilePermission.GROUP_READ, PosixFilePermission.OTHERS_READ,
              PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_EXECUTE);
    }

    try (AcpClientHarness second = new AcpClientHarness(editor)) {
      second.loadSession(id, project);
      assertThat(Updates.lines(second.wireUpdates())).containsExactly(
          "user edit",
          "thought",
          "tool_call think completed Update the plan",
          "plan in_progress,pending",
          "tool_call read completed Read hello.txt",
          "tool_call edit completed Edit hello.txt diff",
          "tool_call think completed Update the plan",
          "plan completed,completed",
          "message",
          "user first words",
          "message");
      assertThat(Updates.message(second.wireUpdates()))
          .isEqualTo("hello.txt now says Hi.You said: first words");
      assertThat(answeredAfterTheLastUpdate(second.wireMessages())).isTrue();
      AcpSchema.ToolCallDiff diff = second.updates.stream()
          .filter(u -> u instanceof AcpSchema.ToolCall t && t.kind() == AcpSchema.ToolKind.EDIT)
          .flatMap(u -> ((AcpSchema.ToolCall) u).content().stream())
          .filter(c -> c instanceof AcpSchema.ToolCallDiff).map(c -> (AcpSchema.ToolCallDiff) c)
          .findFirst().orElseThrow();
      assertThat(diff.path()).isEqualTo(project.toRealPath().resolve("hello.txt").toString());
      assertThat(diff.oldText()).isEqualTo("Hello");
      assertThat(diff.newText()).isEqualTo("Hi");

      assertThat(second.prompt(id, "recall")).isEqualTo(AcpSchema.StopReason.END_TURN);
      // the agent wrote every update of the turn before its answer
      assertThat(Updates.message(second.wireUpdates())).endsWith(
          "I was given: [edit] [first words]");
    }
  }

  @Test
  void aTurnCutShortByAKilledProcessIsReplayedAsEndedAndTheSessionGoesOn() throws Exception {
    Files.writeString(project.resolve("hello.txt"), "Hello from disk\n");
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.sessions = sessions;
    CompletableFuture<Void> asked = new CompletableFuture<>();
    CompletableFuture<AcpSchema.RequestPermissionOutcome> never = new CompletableFuture<>();
    editor.permission = r -> {
      asked.complete(null); // and no answer: the process is killed meanwhile
      try {
        return never.get(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS);
      } catch (Exception e) {
        return new AcpSchema.PermissionCancelled();
      }
    };
    String id;
    AcpClientHarness first = new AcpClientHarness(editor, "commands-and-writes");
    try {
      id = first.newSession(project);
      CompletableFuture.runAsync(() -> first.prompt(id, "edit"));
      asked.get(AcpClientHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS);
      first.killAgent();
    } finally {
      never.complete(new AcpSchema.PermissionCancelled());
      try {
        first.close();
      } catch (RuntimeException e) {
        // the agent is gone already
      }
    }
    assertThat(Files.readString(project.resolve("hello.txt"))).isEqualTo("Hello from disk\n");

    editor.permission = r -> new AcpSchema.PermissionSelected("allow_once");
    try (AcpClientHarness second = new AcpClientHarness(editor, "commands-and-writes")) {
      second.loadSession(id, project);
      assertThat(Updates.lines(second.wireUpdates())).containsExactly(
          "user edit",
          "thought",
          "tool_call think completed Update the plan",
          "plan in_progress,pending",
          "tool_call read completed Read hello.txt",
          "message");
      assertThat(Updates.message(second.wireUpdates()))
          .isEqualTo("\n\nthe Gadget process ended during this turn");
      assertThat(second.prompt(id, "recall")).isEqualTo(AcpSchema.StopReason.END_TURN);
      // the agent wrote every update of the turn before its answer
      assertThat(Updates.message(second.wireUpdates())).endsWith("I was given: [edit]");
    }
  }

  @Test
  void anUnknownSessionIsRefusedInWordsAndTheAgentGoesOn() throws Exception {
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.sessions = sessions;
    try (AcpClientHarness acp = new AcpClientHarness(editor)) {
      assertThatThrownBy(() -> acp.loadSession("gadget-no-such-session", project))
          .hasMessageContaining("There is no stored session \"gadget-no-such-session\"");
      assertThatThrownBy(() -> acp.loadSession("../../etc", project))
          .hasMessageContaining("There is no stored session");
      String id = acp.newSession(project);
      assertThat(acp.prompt(id, "still here")).isEqualTo(AcpSchema.StopReason.END_TURN);
    }
  }

  /** Whether the answer to session/load came after every session/update of the replay. */
  private static boolean answeredAfterTheLastUpdate(List<JsonNode> wire) {
    int lastUpdate = -1;
    int answer = -1;
    for (int i = 0; i < wire.size(); i++) {
      JsonNode m = wire.get(i);
      if ("session/update".equals(m.path("method").asText())) {
        lastUpdate = i;
      } else if (m.path("result").has("models")) {
        answer = i;
      }
    }
    return lastUpdate >= 0 && answer > lastUpdate;
  }
}
