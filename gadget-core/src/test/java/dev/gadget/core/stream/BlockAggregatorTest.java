package dev.gadget.core.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.gadget.core.model.SignedReasoning;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BlockAggregatorTest {
  private final List<TurnBlock> flushed = new ArrayList<>();
  private final Clock clock = Clock.fixed(Instant.parse("2026-05-07T12:00:00Z"), ZoneOffset.UTC);
  private final BlockAggregator aggregator = new BlockAggregator(flushed::add, clock, 0);

  private static StreamChunk think(String s) {
    return new StreamChunk.Thinking(s);
  }

  private static StreamChunk resp(String s) {
    return new StreamChunk.Response(s);
  }

  private static StreamChunk tool(String id) {
    return new StreamChunk.ToolCallChunk(new ToolCall(id, "search_google", "{}", "ok"));
  }

  @Test
  void signedReasoningGoesWithTheOpenThinkingBlockOrAnEmptyOneNeverWithAReply() {
    SignedReasoning sig = new SignedReasoning("anthropic", "Hmm", "sig==", null);
    SignedReasoning enc = new SignedReasoning("anthropic", "", null, "enc");
    aggregator.accept(think("Hmm"));
    aggregator.accept(new StreamChunk.Thinking("", List.of(sig)));
    assertThat(aggregator.openBlock()).get()
        .isEqualTo(new TurnBlock.Thinking(0, clock.instant(), "Hmm", null, List.of(sig)));
    aggregator.accept(resp("Sure"));
    aggregator.accept(new StreamChunk.Thinking("", List.of(enc))); // redacted: no text at all
    aggregator.accept(tool("call-1"));
    assertThat(flushed).containsExactly(
        new TurnBlock.Thinking(0, clock.instant(), "Hmm", null, List.of(sig)),
        new TurnBlock.Responding(1, clock.instant(), "Sure"),
        new TurnBlock.Thinking(2, clock.instant(), "", null, List.of(enc)), flushed.get(3));
  }

  @Test
  void seed003ExampleStreamGivesExactlyItsBlocks() {
    // [think: "Hmm"] [think: " let"] [think: " me"] [resp: "Sure"] [tool: search_google] [resp: " I'll"]
    aggregator.accept(think("Hmm"));
    aggregator.accept(think(" let"));
    aggregator.accept(think(" me"));
    assertThat(flushed).isEmpty();
    assertThat(aggregator.openBlock()).get().extracting(b -> ((TurnBlock.Thinking) b).content())
        .isEqualTo("Hmm let me");

    aggregator.accept(resp("Sure"));
    assertThat(flushed).containsExactly(new TurnBlock.Thinking(0, clock.instant(), "Hmm let me"));

    aggregator.accept(tool("call-1"));
    assertThat(flushed).hasSize(3);
    assertThat(flushed.get(1)).isEqualTo(new TurnBlock.Responding(1, clock.instant(), "Sure"));
    assertThat(flushed.get(2)).isInstanceOf(TurnBlock.Tool.class);
    assertThat(((TurnBlock.Tool) flushed.get(2)).content().callId()).isEqualTo("call-1");
    assertThat(aggregator.openBlock()).isEmpty();

    aggregator.accept(resp(" I'll"));
    assertThat(flushed).hasSize(3);
    aggregator.complete();
    assertThat(flushed).hasSize(4);
    assertThat(flushed.get(3)).isEqualTo(new TurnBlock.Responding(3, clock.instant(), " I'll"));
  }

  @Test
  void emptyTokensNeverOpenABlockAndCompleteIsIdempotent() {
    aggregator.accept(think(""));
    aggregator.accept(resp(""));
    aggregator.complete();
    aggregator.complete();
    assertThat(flushed).isEmpty();
    assertThatThrownBy(() -> aggregator.accept(resp("x")))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void numbersBlocksFromTheGivenFirstSeq() {
    BlockAggregator resumed = new BlockAggregator(flushed::add, clock, 7);
    resumed.accept(resp("a"));
    resumed.accept(tool("c"));
    resumed.complete();
    assertThat(flushed).extracting(TurnBlock::seq).containsExactly(7, 8);
    assertThat(resumed.nextSeq()).isEqualTo(9);
  }

  @Test
  void randomizedSequencesKeepTextAndCountBlocksByRuns() {
    Random random = new Random(20261123L);
    for (int round = 0; round < 2_000; round++) {
      List<TurnBlock> out = new ArrayList<>();
      BlockAggregator agg = new BlockAggregator(out::add, clock, 0);
      List<String> expectedTexts = new ArrayList<>();
      int expectedBlocks = 0;
      String runMode = null;
      StringBuilder run = new StringBuilder();
      int length = random.nextInt(60);
      for (int i = 0; i < length; i++) {
        int kind = random.nextInt(10);
        if (kind == 0) {
          if (runMode != null) {
            expectedTexts.add(runMode + ":" + run);
            expectedBlocks++;
            runMode = null;
            run.setLength(0);
          }
          String id = "call-" + i;
          agg.accept(tool(id));
          expectedTexts.add("tool:" + id);
          expectedBlocks++;
          continue;
        }
        String mode = kind < 5 ? "thinking" : "responding";
        String token = randomToken(random);
        agg.accept(mode.equals("thinking") ? think(token) : resp(token));
        if (token.isEmpty()) {
          continue;
        }
        if (!mode.equals(runMode)) {
          if (runMode != null) {
            expectedTexts.add(runMode + ":" + run);
            expectedBlocks++;
          }
          runMode = mode;
          run.setLength(0);
        }
        run.append(token);
      }
      if (runMode != null) {
        expectedTexts.add(runMode + ":" + run);
        expectedBlocks++;
      }
      agg.complete();

      assertThat(out).hasSize(expectedBlocks);
      assertThat(out).extracting(BlockAggregatorTest::describe).containsExactlyElementsOf(expectedTexts);
      for (int i = 0; i < out.size(); i++) {
        assertThat(out.get(i).seq()).isEqualTo(i);
        if (i > 0 && !(out.get(i) instanceof TurnBlock.Tool)) {
          // two neighbouring text blocks never share a mode: a run is one block
          assertThat(out.get(i).mode()).isNotEqualTo(out.get(i - 1).mode());
        }
      }
    }
  }

  private static String randomToken(Random random) {
    String alphabet = "ab <>é\n漢😀";
    int n = random.nextInt(4);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(alphabet.charAt(random.nextInt(alphabet.length() - 1)));
    }
    return sb.toString();
  }

  private static String describe(TurnBlock block) {
    if (block instanceof TurnBlock.Thinking t) {
      return "thinking:" + t.content();
    }
    if (block instanceof TurnBlock.Responding r) {
      return "responding:" + r.content();
    }
    return "tool:" + ((TurnBlock.Tool) block).content().callId();
  }
}
