package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent as an editor sees it, over stdio, from the official ACP Java SDK's client. */
class AcpPromptTest {
  @TempDir Path project;

  private static final List<String> EDIT_UPDATES = List.of(
      "thought",
      "tool_call think in_progress Update the plan",
      "update completed",
      "plan in_progress,pending",
      "tool_call read in_progress Read hello.txt",
      "update completed",
      "tool_call edit in_progress Edit hello.txt",
      "update completed diff",
      "tool_call think in_progress Update the plan",
      "update completed",
      "plan completed,completed",
      "message");

  @Test
  void initializeAnswersWithTheProtocolVersionAndCapabilities() {
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      AcpSchema.InitializeResponse init = acp.initializeResponse;
      assertThat(init.protocolVersion()).isEqualTo(1);
      assertThat(init.agentCapabilities().promptCapabilities().embeddedContext()).isTrue();
      assertThat(init.agentCapabilities().promptCapabilities().image()).isFalse();
      assertThat(init.agentCapabilities().mcpCapabilities().http()).isTrue();
      assertThat(init.agentInfo().name()).isEqualTo("gadget");
    }
  }

  @Test
  void aPromptPlansReadsEditsOnDiskAndAnswersWithUpdatesInOrder() throws Exception {
    Path hello = Files.writeString(project.resolve("hello.txt"), "Hello from disk\n");
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "edit")).isEqualTo(AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().endsWith("Hi."));
      assertThat(Updates.lines(acp.wireUpdates())).containsExactlyElementsOf(EDIT_UPDATES);
      assertThat(Updates.message(acp.wireUpdates())).isEqualTo("hello.txt now says Hi.");
      acp.awaitUpdate(AcpPromptTest::hasDiff);
      acp.awaitUpdate(u -> u instanceof AcpSchema.ToolCall t
          && t.kind() == AcpSchema.ToolKind.READ);
      assertThat(Files.readString(hello)).isEqualTo("Hi from disk\n");
      AcpSchema.ToolCallDiff diff = Updates.diffs(acp.updates).get(0);
      assertThat(diff.path()).isEqualTo(hello.toRealPath().toString());
      assertThat(diff.oldText()).isEqualTo("Hello from disk\n");
      assertThat(diff.newText()).isEqualTo("Hi from disk\n");
      AcpSchema.ToolCall read = acp.updates.stream()
          .filter(u -> u instanceof AcpSchema.ToolCall t && t.kind() == AcpSchema.ToolKind.READ)
          .map(u -> (AcpSchema.ToolCall) u).findFirst().orElseThrow();
      assertThat(read.locations()).extracting(AcpSchema.ToolCallLocation::path)
          .containsExactly(hello.toRealPath().toString());
      assertThat(acp.writes).isEmpty();
    }
  }

  @Test
  void withTheEditorsFileSystemReadsAndWritesGoThroughTheEditor() throws Exception {
    Path hello = Files.writeString(project.resolve("hello.txt"), "Hello from disk\n");
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.fs = true;
    editor.buffer = "Hello from the unsaved buffer\n";
    try (AcpClientHarness acp = new AcpClientHarness(editor)) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "edit")).isEqualTo(AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().endsWith("Hi."));
      assertThat(Updates.lines(acp.wireUpdates())).containsExactlyElementsOf(EDIT_UPDATES);
      acp.awaitUpdate(AcpPromptTest::hasDiff);
      assertThat(acp.writes).singleElement().satisfies(w -> {
        assertThat(w.path()).isEqualTo(hello.toRealPath().toString());
        assertThat(w.content()).isEqualTo("Hi from the unsaved buffer\n");
        assertThat(w.sessionId()).isEqualTo(session);
      });
      assertThat(Files.readString(hello)).as("the disk is the editor's business")
          .isEqualTo("Hello from disk\n");
      AcpSchema.ToolCallDiff diff = Updates.diffs(acp.updates).get(0);
      assertThat(diff.oldText()).isEqualTo("Hello from the unsaved buffer\n");
      assertThat(diff.newText()).isEqualTo("Hi from the unsaved buffer\n");
    }
  }

  @Test
  void aSessionRemembersTheConversation() throws Exception {
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "first")).isEqualTo(AcpSchema.StopReason.END_TURN);
      assertThat(acp.prompt(session, "second")).isEqualTo(AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().contains("second"));
      assertThat(Updates.message(acp.wireUpdates())).isEqualTo("You said: firstYou said: second");
    }
  }

  /** Whether the SDK's client received a tool call update with a diff. */
  static boolean hasDiff(AcpSchema.SessionUpdate u) {
    return u instanceof AcpSchema.ToolCallUpdateNotification t && t.content() != null
        && t.content().stream().anyMatch(c -> c instanceof AcpSchema.ToolCallDiff);
  }
}
