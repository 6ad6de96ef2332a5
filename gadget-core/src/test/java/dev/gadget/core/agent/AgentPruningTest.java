package dev.gadget.core.agent;

import static dev.gadget.core.llm.ScriptedLlmClient.reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.Role;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pruning as the model sees it through the loop. */
class AgentPruningTest {
  @TempDir Path tmp;

  private static List<String> toolResults(List<LlmMessage> messages) {
    return messages.stream().filter(m -> m.role() == Role.TOOL).map(LlmMessage::content)
        .collect(Collectors.toList());
  }

  @Test
  void withinTheBudgetOlderReadsOfAFileEditedAndReadAgainStayWholeSoThePrefixHolds()
      throws Exception {
    String original = IntStream.rangeClosed(1, 40).mapToObj(i -> "line " + i + " alpha\n")
        .collect(Collectors.joining());
    TestRepo repo = TestRepo.create(tmp, "a.txt", original);
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("read_file", "{\"path\":\"a.txt\"}").build(),
        reply().toolCall("edit_file", "{\"path\":\"a.txt\",\"old_text\":\"line 7 alpha\","
            + "\"new_text\":\"line 7 beta\"}").build(),
        reply().toolCall("read_file", "{\"path\":\"a.txt\"}").build(),
        reply().text("done").build());

    AgentOutcome outcome = AgentLoop.builder().llmClient(llm).build()
        .start(AgentRequest.builder(repo.dir(), "m", "change line 7").build(),
            new RecordingListener())
        .outcome().get(20, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    String edited = original.replace("line 7 alpha", "line 7 beta");
    assertThat(repo.read("a.txt")).isEqualTo(edited);
    assertThat(toolResults(llm.requests().get(1).messages())).containsExactly(original);
    // superseded, but the context is far from its budget: nothing earlier is rewritten, so each
    // request begins with the one before (the prompt cache's prefix); a batch of pruning over
    // the budget summarises it (ContextPrunerTest)
    assertThat(toolResults(llm.requests().get(3).messages())).containsExactly(original,
        "Edited a.txt: replaced 1 line at line 7 with 1 line.", edited);
    ContextPrunerTest.assertPairedCallsAndResults(llm.requests().get(3).messages());
  }

  @Test
  void overTheTokenBudgetTheOldestOutputsAreElidedAndThePromptsKept() throws Exception {
    String big1 = "first big file\n".repeat(600);  // 9000 chars
    String big2 = "second big file\n".repeat(600); // 9600 chars
    TestRepo repo = TestRepo.create(tmp, "one.txt", big1, "two.txt", big2);
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        reply().toolCall("read_file", "{\"path\":\"one.txt\"}").build(),
        reply().toolCall("read_file", "{\"path\":\"two.txt\"}").build(),
        reply().text("done").build());
    String prompt = "Compare the two files. " + "Be thorough. ".repeat(100);

    AgentOutcome outcome = AgentLoop.builder().llmClient(llm)
        .limits(AgentLimits.DEFAULTS.withContextTokenBudget(6000)).build()
        .start(AgentRequest.builder(repo.dir(), "m", prompt).build(), new RecordingListener())
        .outcome().get(20, TimeUnit.SECONDS);

    assertThat(outcome.status()).isEqualTo(AgentOutcome.Status.FINISHED);
    List<LlmMessage> second = llm.requests().get(1).messages();
    assertThat(toolResults(second)).containsExactly(big1); // 3,000 tokens fit in 6,000
    List<LlmMessage> third = llm.requests().get(2).messages();
    assertThat(ContextPruner.estimateTokens(third)).isLessThanOrEqualTo(6000);
    assertThat(outcome.stats().contextTokens()).isBetween(1L, 6000L);
    assertThat(outcome.stats().contextBudget()).isEqualTo(6000);
    assertThat(toolResults(third)).containsExactly(
        "[read_file output elided to fit the context budget (9000 chars)]", big2);
    assertThat(third.get(0).role()).isEqualTo(Role.SYSTEM);
    assertThat(third.get(0).content()).isEqualTo(second.get(0).content());
    assertThat(third.get(1).content()).isEqualTo(prompt);
    ContextPrunerTest.assertPairedCallsAndResults(third);
    // The outcome keeps the full results: pruning changes what is sent, not what happened.
    assertThat(outcome.toolCalls().get(0).response()).isEqualTo(big1);
  }
}
