package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A turn that hits a limit of the loop, or of the model, ends with the matching stopReason, and
 * says why.
 */
class AcpLimitTest {
  @TempDir Path project;

  @Test
  void theRoundTripLimitEndsThePromptWithMaxTurnRequests() throws Exception {
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.maxRoundTrips = 3;
    try (AcpClientHarness acp = new AcpClientHarness(editor)) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "loop")).isEqualTo(AcpSchema.StopReason.MAX_TURN_REQUESTS);
      acp.awaitWire(u -> u.path("content").path("text").asText().contains("the limit"));
      assertThat(Updates.lines(acp.wireUpdates())).containsExactly(
          "tool_call search in_progress List the project", "update completed",
          "tool_call search in_progress List ./.", "update completed",
          "tool_call search in_progress List ././.", "update completed",
          "message");
      assertThat(Updates.message(acp.wireUpdates())).isEqualTo("\n\nStopped: the model made 3 "
          + "round trips in this turn, the limit. The work so far is kept; send another prompt "
          + "to go on.");
      // the session takes the next prompt
      assertThat(acp.prompt(session, "again")).isEqualTo(AcpSchema.StopReason.END_TURN);
    }
  }

  @Test
  void theSameCallRepeatedEndsThePromptWithMaxTurnRequests() throws Exception {
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "repeat")).isEqualTo(AcpSchema.StopReason.MAX_TURN_REQUESTS);
      acp.awaitWire(u -> u.path("content").path("text").asText().contains("looks like a loop"));
      // the third identical call is not run
      assertThat(Updates.lines(acp.wireUpdates())).containsExactly(
          "tool_call search in_progress List the project", "update completed",
          "tool_call search in_progress List the project", "update completed",
          "message");
      assertThat(Updates.message(acp.wireUpdates())).startsWith("\n\nStopped: the model called "
          + "list_dir with the same arguments 3 times in a row");
    }
  }

  @Test
  void aReplyCutAtTheModelsOutputLimitEndsWithMaxTokens() throws Exception {
    try (AcpClientHarness acp = new AcpClientHarness(new AcpClientHarness.Editor())) {
      String session = acp.newSession(project);
      assertThat(acp.prompt(session, "cut")).isEqualTo(AcpSchema.StopReason.MAX_TOKENS);
      acp.awaitWire(u -> u.path("content").path("text").asText().contains("mod"));
      assertThat(Updates.message(acp.wireUpdates())).isEqualTo("The answer is cut at the mod");
      assertThat(acp.prompt(session, "refuse")).isEqualTo(AcpSchema.StopReason.REFUSAL);
      assertThat(acp.prompt(session, "again")).isEqualTo(AcpSchema.StopReason.END_TURN);
    }
  }
}
