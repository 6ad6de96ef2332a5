package dev.gadget.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.model.Role;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link ContextPruner} on literal conversations. */
class ContextPrunerTest {
  private static final ContextPruner BIG_BUDGET = new ContextPruner(1_000_000);
  private static final String A_V1 = "version one of a.txt ".repeat(20);
  private static final String A_V2 = "version two of a.txt ".repeat(20);

  private static JsonNode json(String s) {
    try {
      return GadgetJson.mapper().readTree(s);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static LlmToolCall call(String id, String name, String args) {
    return new LlmToolCall(id, name, json(args));
  }

  private static LlmMessage assistant(LlmToolCall... calls) {
    return LlmMessage.assistant("", null, List.of(calls));
  }

  @Test
  void anOlderReadOfAFileBecomesASummaryOnceItIsReadAgain() {
    LlmToolCall r1 = call("c1", "read_file", "{\"path\":\"a.txt\"}");
    LlmToolCall other = call("c2", "read_file", "{\"path\":\"b.txt\"}");
    LlmToolCall r2 = call("c3", "read_file", "{\"path\":\"./a.txt\"}");
    List<LlmMessage> in = List.of(
        LlmMessage.system("sys"),
        LlmMessage.user("prompt"),
        assistant(r1, other),
        LlmMessage.tool(r1, A_V1),
        LlmMessage.tool(other, "b content"),
        assistant(r2),
        LlmMessage.tool(r2, A_V2));

    List<LlmMessage> out = BIG_BUDGET.prune(in);

    assertThat(out).hasSize(in.size());
    assertThat(out.get(3).content()).isEqualTo("[read_file output for a.txt elided: a later "
        + "read of this file is further down (" + A_V1.length() + " chars)]");
    assertThat(out.get(3).toolCallId()).isEqualTo("c1");
    assertThat(out.get(4)).isEqualTo(in.get(4));
    assertThat(out.get(6)).isEqualTo(in.get(6));
    assertThat(out.subList(0, 3)).isEqualTo(in.subList(0, 3));
    assertThat(in.get(3).content()).isEqualTo(A_V1); // the input is untouched
  }

  @Test
  void anEditSupersedesEarlierReadsAndWritesAndTheirLongArguments() {
    String content = "x".repeat(500);
    LlmToolCall write = call("c1", "write_file",
        "{\"path\":\"a.txt\",\"content\":\"" + content + "\"}");
    LlmToolCall read = call("c2", "read_file", "{\"path\":\"a.txt\"}");
    LlmToolCall edit = call("c3", "edit_file",
        "{\"path\":\"a.txt\",\"old_text\":\"x\",\"new_text\":\"y\"}");
    List<LlmMessage> in = List.of(
        LlmMessage.system("sys"), LlmMessage.user("p"),
        assistant(write), LlmMessage.tool(write, "Created a.txt (1 lines, 500 bytes)"),
        assistant(read), LlmMessage.tool(read, content),
        assistant(edit), LlmMessage.tool(edit, "Edited a.txt: replaced 1 line at line 1."));

    List<LlmMessage> out = BIG_BUDGET.prune(in);

    LlmToolCall prunedWrite = out.get(2).toolCalls().get(0);
    assertThat(prunedWrite.id()).isEqualTo("c1");
    assertThat(prunedWrite.arguments().get("path").asText()).isEqualTo("a.txt");
    assertThat(prunedWrite.arguments().get("content").asText())
        .isEqualTo("[500 chars superseded by a later read or change of a.txt]");
    assertThat(out.get(3)).isEqualTo(in.get(3)); // shorter than any summary: kept
    assertThat(out.get(5).content()).isEqualTo("[read_file output for a.txt elided: a later "
        + "change of this file is further down (500 chars)]");
    assertThat(out.get(6)).isEqualTo(in.get(6)); // the newest call is whole
    assertThat(out.get(7)).isEqualTo(in.get(7));
  }

  @Test
  void aRangeReadDoesNotSupersedeAFullReadButIsSupersededByAnyLaterOne() {
    LlmToolCall full = call("c1", "read_file", "{\"path\":\"a.txt\"}");
    LlmToolCall range1 = call("c2", "read_file",
        "{\"path\":\"a.txt\",\"start_line\":1,\"end_line\":50}");
    LlmToolCall range2 = call("c3", "read_file",
        "{\"path\":\"a.txt\",\"start_line\":51}");
    List<LlmMessage> in = List.of(
        LlmMessage.system("sys"), LlmMessage.user("p"),
        assistant(full), LlmMessage.tool(full, A_V1),
        assistant(range1), LlmMessage.tool(range1, A_V1),
        assistant(range2), LlmMessage.tool(range2, A_V1));

    List<LlmMessage> out = BIG_BUDGET.prune(in);

    assertThat(out.get(3).content()).isEqualTo(A_V1);
    assertThat(out.get(5).content()).startsWith("[read_file output for a.txt elided");
    assertThat(out.get(7).content()).isEqualTo(A_V1);
  }

  @Test
  void overBudgetTheOldestToolOutputsAreElidedFirstAndPromptsAreNeverTouched() {
    String big = "y".repeat(4000); // ~1334 tokens each
    String system = "s".repeat(2000);
    String prompt = "p".repeat(2000);
    List<LlmMessage> in = new ArrayList<>();
    in.add(LlmMessage.system(system));
    in.add(LlmMessage.user(prompt));
    for (int i = 1; i <= 4; i++) {
      LlmToolCall c = call("c" + i, "grep", "{\"pattern\":\"p" + i + "\"}");
      in.add(assistant(c));
      in.add(LlmMessage.tool(c, big));
    }
    int before = ContextPruner.estimateTokens(in);
    assertThat(before).isBetween(6700, 6800);

    List<LlmMessage> out = new ContextPruner(4300).prune(in);

    assertThat(ContextPruner.estimateTokens(out)).isLessThanOrEqualTo(4300);
    assertThat(out.get(0).content()).isEqualTo(system);
    assertThat(out.get(1).content()).isEqualTo(prompt);
    assertThat(out.get(3).content())
        .isEqualTo("[grep output elided to fit the context budget (4000 chars)]");
    assertThat(out.get(5).content()).startsWith("[grep output elided");
    assertThat(out.get(7).content()).isEqualTo(big);
    assertThat(out.get(9).content()).isEqualTo(big);
    assertPairedCallsAndResults(out);
  }

  @Test
  void thenMergedThinkingAndThenLongArgumentsGoButNothingIsRemoved() {
    String thinking = "<thinking>" + "t".repeat(4000) + "</thinking>\n";
    LlmToolCall w = call("c1", "write_file",
        "{\"path\":\"b.txt\",\"content\":\"" + "z".repeat(4000) + "\"}");
    List<LlmMessage> in = List.of(
        LlmMessage.system("sys"),
        LlmMessage.user("earlier prompt"),
        LlmMessage.assistant(thinking + "earlier answer", null, List.of()),
        LlmMessage.user("prompt"),
        LlmMessage.assistant("", "current thinking kept", List.of(w)),
        LlmMessage.tool(w, "Created b.txt"));

    List<LlmMessage> out = new ContextPruner(200).prune(in);

    assertThat(out).hasSize(in.size());
    assertThat(out.get(2).content()).isEqualTo("earlier answer");
    assertThat(out.get(4).toolCalls().get(0).arguments().get("content").asText())
        .isEqualTo("[4000 chars elided to fit the context budget]");
    assertThat(out.get(4).thinking()).isEqualTo("current thinking kept");
    assertThat(out.get(1)).isEqualTo(in.get(1));
    assertThat(out.get(3)).isEqualTo(in.get(3));
    assertPairedCallsAndResults(out);
  }

  /** A conversation of {@code n} reads of 3,000 characters (~1,000 tokens each). */
  private static List<LlmMessage> reads(int n) {
    List<LlmMessage> in = new ArrayList<>(List.of(LlmMessage.system("sys"),
        LlmMessage.user("prompt")));
    for (int i = 0; i < n; i++) {
      LlmToolCall c = call("c" + i, "read_file", "{\"path\":\"f" + i + ".txt\"}");
      in.add(assistant(c));
      in.add(LlmMessage.tool(c, ("read " + i + " ").repeat(375)));
    }
    return in;
  }

  @Test
  void inBatchesNothingIsClearedWithinTheBudgetNotEvenASupersededRead() {
    LlmToolCall r1 = call("c1", "read_file", "{\"path\":\"a.txt\"}");
    LlmToolCall r2 = call("c2", "read_file", "{\"path\":\"a.txt\"}");
    List<LlmMessage> in = List.of(LlmMessage.system("sys"), LlmMessage.user("prompt"),
        assistant(r1), LlmMessage.tool(r1, A_V1), assistant(r2), LlmMessage.tool(r2, A_V2));
    ContextPruner.Pruned p = BIG_BUDGET.prune(in, 1_000_000, ContextPruner.Cleared.NONE, 1000);
    assertThat(p.messages()).isEqualTo(in);
    assertThat(p.batch()).isFalse();
    assertThat(p.cleared()).isEqualTo(ContextPruner.Cleared.NONE);
  }

  @Test
  void overTheBudgetABatchClearsDownToItsMarginKeepsTheNewestResultsAndIsRepeatedExactly() {
    List<LlmMessage> in = reads(8); // ~8,100 tokens
    ContextPruner pruner = new ContextPruner(1_000_000);
    ContextPruner.Pruned batch = pruner.prune(in, 7000, ContextPruner.Cleared.NONE, 2000);
    assertThat(batch.batch()).isTrue();
    int after = ContextPruner.estimateTokens(batch.messages());
    assertThat(after).isLessThanOrEqualTo(5000);
    // the stateless rule stops at the budget: the batch cleared a margin more
    assertThat(ContextPruner.estimateTokens(pruner.prune(in, 7000))).isGreaterThan(5000);
    assertThat(batch.messages().get(3).content()).startsWith("[read_file output elided");
    assertThat(batch.messages().get(17).content()).isEqualTo(in.get(17).content());

    // the next rounds, within the budget: the same clearing, the new messages as they are
    List<LlmMessage> next = new ArrayList<>(in);
    LlmToolCall reread = call("c9", "read_file", "{\"path\":\"f7.txt\"}");
    next.add(assistant(reread));
    next.add(LlmMessage.tool(reread, "short now"));
    ContextPruner.Pruned again = pruner.prune(next, 7000, batch.cleared(), 2000);
    assertThat(again.batch()).isFalse();
    assertThat(again.messages().subList(0, in.size())).isEqualTo(batch.messages());
    assertThat(again.messages().subList(in.size(), next.size()))
        .isEqualTo(next.subList(in.size(), next.size()));
    assertThat(again.cleared()).isEqualTo(batch.cleared());

    // over the budget again: the next batch also summarises the superseded read of f7.txt
    for (int i = 10; i < 14; i++) {
      LlmToolCall c = call("c" + i, "read_file", "{\"path\":\"g" + i + ".txt\"}");
      next.add(assistant(c));
      next.add(LlmMessage.tool(c, ("more " + i + " ").repeat(500)));
    }
    ContextPruner.Pruned second = pruner.prune(next, 7000, again.cleared(), 2000);
    assertThat(second.batch()).isTrue();
    assertThat(second.messages().get(17).content())
        .startsWith("[read_file output for f7.txt elided: a later read");
    assertThat(second.cleared().superseded()).contains("c7");
    assertThat(ContextPruner.estimateTokens(second.messages())).isLessThanOrEqualTo(7000);
    assertPairedCallsAndResults(second.messages());
  }

  @Test
  void underBudgetWithNothingSupersededTheListIsUnchanged() {
    LlmToolCall c = call("c1", "read_file", "{\"path\":\"a.txt\"}");
    List<LlmMessage> in = List.of(LlmMessage.system("s"), LlmMessage.user("u"), assistant(c),
        LlmMessage.tool(c, A_V1), LlmMessage.assistant("done", "thought", List.of()));
    assertThat(BIG_BUDGET.prune(in)).isEqualTo(in);
    assertThat(BIG_BUDGET.prune(List.of())).isEmpty();
  }

  @Test
  void tokensAreEstimatedAtThreeCharactersEach() {
    assertThat(ContextPruner.estimateTokens(LlmMessage.user(""))).isEqualTo(4);
    assertThat(ContextPruner.estimateTokens(LlmMessage.user("abc"))).isEqualTo(5);
    assertThat(ContextPruner.estimateTokens(LlmMessage.user("abcd"))).isEqualTo(6);
    LlmToolCall c = call("c1", "glob", "{\"a\":1}"); // "glob" + {"a":1} = 11 chars
    assertThat(ContextPruner.estimateTokens(LlmMessage.assistant("", "th", List.of(c))))
        .isEqualTo((2 + 11 + 2) / 3 + 4);
  }

  @Test
  void pathsAreComparedNormalized() {
    assertThat(ContextPruner.normalize("./src//A.java")).isEqualTo("src/A.java");
    assertThat(ContextPruner.normalize("src/./A.java")).isEqualTo("src/A.java");
    assertThat(ContextPruner.normalize("src/")).isEqualTo("src");
  }

  /** Every call has exactly one result right after its assistant message, and vice versa. */
  static void assertPairedCallsAndResults(List<LlmMessage> messages) {
    Set<String> calls = new HashSet<>();
    Set<String> results = new HashSet<>();
    for (LlmMessage m : messages) {
      m.toolCalls().forEach(c -> calls.add(c.id()));
      if (m.role() == Role.TOOL) {
        assertThat(calls).as("a result without its call").contains(m.toolCallId());
        assertThat(results.add(m.toolCallId())).as("two results for one call").isTrue();
      }
    }
    assertThat(results).as("calls without results").isEqualTo(calls);
  }
}
