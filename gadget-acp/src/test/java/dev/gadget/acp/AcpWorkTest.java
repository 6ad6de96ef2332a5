package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One prompt doing everything a turn does (plan, read, edit, run a command, answer), once with
 * the editor's file system and terminal and once with the disk and Gadget's sandbox: every
 * update, token usage included, checked in the order the agent sent it.
 */
class AcpWorkTest {
  @TempDir Path project;

  /** The updates of the "work" script; {@code terminal} is what the command's updates embed. */
  private static List<String> expected(String terminal) {
    List<String> out = new ArrayList<>(List.of(
        "thought", "usage", // the usage after each model round
        "tool_call think in_progress Update the plan",
        "update completed",
        "plan in_progress,pending,pending",
        "usage",
        "tool_call read in_progress Read hello.txt",
        "update completed",
        "usage",
        "tool_call edit in_progress Edit hello.txt",
        "update completed diff",
        "usage",
        "tool_call execute in_progress Run `cat hello.txt`"));
    if (!terminal.isEmpty()) {
      out.add("update" + terminal); // as soon as the editor's terminal runs it
    }
    out.addAll(List.of(
        "update completed" + terminal,
        "message", "usage",
        "tool_call think in_progress Update the plan",
        "update completed",
        "plan completed,completed,completed",
        "message", "usage"));
    return out;
  }

  @Test
  void withTheEditorsFileSystemAndTerminalEveryUpdateComesInOrder() throws Exception {
    Path hello = Files.writeString(project.resolve("hello.txt"), "Hello from disk\n");
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.fs = true;
    editor.buffer = "Hello from the unsaved buffer\n";
    editor.terminal = new RealTerminals();
    try (AcpClientHarness acp = new AcpClientHarness(editor)) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "work")).isEqualTo(AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().endsWith("Done."));
      List<JsonNode> sent = acp.wireUpdates();
      assertThat(Updates.linesWithUsage(sent)).containsExactlyElementsOf(expected(" terminal"));
      // the editor's buffer was read and written; its terminal ran the command on the disk
      assertThat(acp.writes).singleElement().satisfies(w ->
          assertThat(w.content()).isEqualTo("Hi from the unsaved buffer\n"));
      assertThat(Files.readString(hello)).isEqualTo("Hello from disk\n");
      assertThat(editor.terminal.calls).containsExactly("create term-1",
          "wait_for_exit term-1", "output term-1", "release term-1");
      assertThat(Updates.message(sent))
          .isEqualTo("cat said: exit code: 0\nHello from disk. Done.");
      assertUsage(sent);
    }
  }

  @Test
  void withTheDiskAndTheSandboxEveryUpdateComesInOrder() throws Exception {
    Path hello = Files.writeString(project.resolve("hello.txt"), "Hello from disk\n");
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "work")).isEqualTo(AcpSchema.StopReason.END_TURN);
      acp.awaitWire(u -> u.path("content").path("text").asText().endsWith("Done."));
      List<JsonNode> sent = acp.wireUpdates();
      assertThat(Updates.linesWithUsage(sent)).containsExactlyElementsOf(expected(""));
      assertThat(acp.writes).isEmpty();
      assertThat(acp.permissionRequests).as("the policy \"never\" asks nothing").isEmpty();
      assertThat(Files.readString(hello)).isEqualTo("Hi from disk\n");
      // each call's update carries what the tool returned
      List<String> outputs = sent.stream()
          .filter(u -> u.path("sessionUpdate").asText().equals("tool_call_update"))
          .filter(u -> u.path("status").asText().equals("completed"))
          .map(u -> u.path("content").path(0).path("content").path("text").asText()).toList();
      assertThat(outputs.get(1)).as("the read").contains("Hello from disk");
      assertThat(outputs.get(3)).as("the command").isEqualTo("exit code: 0\nHi from disk\n");
      // the sandbox ran the command on the edited disk
      assertThat(Updates.message(sent)).isEqualTo("cat said: exit code: 0\nHi from disk. Done.");
      assertUsage(sent);
    }
  }

  /** Each usage_update: tokens used, growing, within the default budget of 32,000. */
  private static void assertUsage(List<JsonNode> sent) {
    List<JsonNode> usage = sent.stream()
        .filter(u -> u.path("sessionUpdate").asText().equals("usage_update")).toList();
    long previous = 0;
    for (JsonNode u : usage) {
      assertThat(u.path("size").asLong()).isEqualTo(32_000);
      assertThat(u.path("used").asLong()).isGreaterThan(previous).isLessThan(32_000);
      previous = u.path("used").asLong();
    }
  }
}
