package dev.gadget.acp;

import static org.assertj.core.api.Assertions.assertThat;

import com.agentclientprotocol.sdk.spec.AcpSchema;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long session is compacted as a drone's is: the loop summarizes the oldest rounds to keep
 * within its context budget, the compaction is stored, and the next turn (in this process or,
 * after session/load, in the next) starts from it.
 */
class AcpCompactionTest {
  @TempDir Path project;
  @TempDir Path sessions;

  @Test
  void aLongSessionIsCompactedAndTheNextTurnStartsFromTheSummaryAfterALoad() throws Exception {
    AcpClientHarness.Editor editor = new AcpClientHarness.Editor();
    editor.sessions = sessions;
    editor.contextBudget = BUDGET;
    String id;
    String recalledFirst;
    try (AcpClientHarness first = new AcpClientHarness(editor)) {
      id = first.newSession(project);
      for (String word : new String[] {"alpha", "beta", "gamma", "delta"}) {
        assertThat(first.prompt(id, "big " + word)).isEqualTo(AcpSchema.StopReason.END_TURN);
      }
      assertThat(first.prompt(id, "recall")).isEqualTo(AcpSchema.StopReason.END_TURN);
      recalledFirst = last(Updates.message(first.wireUpdates()));
      // the first prompt always, then the summary of what came between
      assertThat(recalledFirst).startsWith("I was given: [big alpha] [" + SUMMARY)
          .contains("SUMMARY of ").doesNotContain("[big beta]");
    }
    try (AcpClientHarness second = new AcpClientHarness(editor)) {
      second.loadSession(id, project);
      int replayed = Updates.message(second.wireUpdates()).length();
      assertThat(second.prompt(id, "recall")).isEqualTo(AcpSchema.StopReason.END_TURN);
      String recalled = Updates.message(second.wireUpdates()).substring(replayed);
      // the stored compaction, not a new one: the same summary, then the rounds kept after it
      // (the first process's recall)
      assertThat(recalled).isEqualTo(recalledFirst + " [recall]");
    }
  }

  private static final int BUDGET = 3000;
  private static final String SUMMARY = "[Summary of the earlier conversation";

  private static String last(String messages) {
    return messages.substring(messages.lastIndexOf("I was given:"));
  }
}
