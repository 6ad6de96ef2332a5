package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The web page in headless Chromium (Debian's, driven by playwright-core from
 * {@code src/test/node/page.js}) against a real server, store and drone in this JVM, with
 * scripted LLM replies: a prompt streams into blocks updated in place, a reload shows the same
 * blocks from the store, and hostile Markdown does not execute.
 */
class BrowserTest extends BrowserTestBase {
  static final String ANSWER = "## The greeter\n\nThis project is a **command-line greeter** "
      + "written in Java. Its README lists two things to do:\n\n"
      + "1. greet in more languages\n2. add a test\n\n"
      + "```java\nstatic String greet(String name) {\n  return \"Hello, \" + name + \"!\";\n}\n```\n\n"
      + "Ask me to implement either one and I will edit `src/Greeter.java` for you, run the "
      + "build,\nand show you the result of a test run as well.\n";

  private static ScriptedLlmClient twoSteps() {
    return ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(15))
        .reply(ScriptedLlmClient.reply()
            .thinking("The user wants an overview. I will read the README before answering, "
                + "because it usually says what a project is for.")
            .text("Let me read the README.")
            .toolCall("read_file", "{\"path\":\"README.md\"}").build())
        .reply(ScriptedLlmClient.reply()
            .thinking("The README describes a greeter with a short to-do list.")
            .text(ANSWER).build())
        .build();
  }

  private Map<String, Object> config(String scenario, String prompt) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", scenario);
    c.put("prompt", prompt);
    c.put("timeoutMs", 30000);
    return c;
  }

  private List<String> storedModes() {
    List<ChatTurn> turns = fx.store.store().listTurns(fx.session.id());
    assertThat(turns).hasSize(1);
    assertThat(turns.get(0).status()).isEqualTo(TurnStatus.FINISHED);
    List<String> modes = new ArrayList<>();
    for (TurnBlock b : turns.get(0).blocks()) {
      modes.add(b instanceof TurnBlock.Thinking ? "thinking"
          : b instanceof TurnBlock.Responding ? "responding" : "tool");
    }
    return modes;
  }

  @Test
  void aPromptStreamsIntoBlocksUpdatedInPlace() throws Exception {
    fx = new PageFixture(tmp, twoSteps(), true);
    JsonNode r = BrowserHarness.run(config("stream", "What is this project about?"));

    assertThat(r.get("status").asText()).isEqualTo("finished");
    List<String> modes = new ArrayList<>();
    for (JsonNode b : r.get("blocks")) {
      modes.add(b.get("mode").asText());
    }
    assertThat(modes).containsExactly("thinking", "responding", "tool", "thinking", "responding");
    assertThat(storedModes()).isEqualTo(modes);
    JsonNode answer = r.get("blocks").get(4);
    assertThat(answer.get("text").asText())
        .contains("The greeter", "command-line greeter", "static String greet")
        .doesNotContain("**", "```"); // rendered as Markdown, not shown as source
    assertThat(r.get("blocks").get(2).get("text").asText())
        .contains("read_file", "README.md", "done", "A tiny sample project");
    // seed 003's rendering: thinking labelled, muted and monospace; a reply as Markdown with
    // breaks: true (a single newline is a line break); a tool as one line, a dot and its outcome
    JsonNode looks = r.get("looks");
    assertThat(looks.get("thinkingLabel").asText()).isEqualTo("Thinking");
    assertThat(looks.get("thinkingFont").asText()).contains("monospace");
    assertThat(looks.get("thinkingColor").asText()).as("muted")
        .isNotEqualTo(looks.get("replyColor").asText());
    assertThat(looks.get("replyBreaks").asInt()).as("line breaks in a paragraph").isEqualTo(1);
    assertThat(looks.get("toolName").asText()).isEqualTo("read_file");
    assertThat(looks.get("toolSummaryHeight").asDouble()).as("the tool's line")
        .isLessThan(2 * looks.get("toolNameHeight").asDouble());
    assertThat(looks.get("toolDot").asText()).isEqualTo("dot done");
    assertThat(looks.get("toolStatus").asText()).startsWith("done · ");

    // In place: every block element ever seen is still there at the end (none was replaced or
    // duplicated), and the answer's element grew through many intermediate states.
    Set<Integer> seen = new HashSet<>();
    Map<Integer, Set<Integer>> lengths = new HashMap<>();
    int maxBlocks = 0;
    for (JsonNode sample : r.get("samples")) {
      maxBlocks = Math.max(maxBlocks, sample.size());
      for (JsonNode b : sample) {
        seen.add(b.get("id").asInt());
        lengths.computeIfAbsent(b.get("id").asInt(), k -> new HashSet<>())
            .add(b.get("len").asInt());
      }
    }
    List<Integer> finalIds = new ArrayList<>();
    for (JsonNode b : r.get("finalIds")) {
      finalIds.add(b.get("id").asInt());
    }
    assertThat(seen).containsExactlyInAnyOrderElementsOf(finalIds);
    assertThat(maxBlocks).isEqualTo(5);
    int answerId = finalIds.get(4);
    int finalLength = r.get("finalIds").get(4).get("len").asInt();
    assertThat(lengths.get(answerId)).as("lengths the answer block showed while streaming")
        .hasSizeGreaterThanOrEqualTo(5)
        .anyMatch(len -> len > 0 && len < finalLength / 2);
    int thinkingId = finalIds.get(0);
    assertThat(lengths.get(thinkingId)).as("lengths the first thinking block showed")
        .hasSizeGreaterThanOrEqualTo(3);
    // the sidebar showed the drone's workspace mode go to agent for the turn, then back to idle
    List<String> shownModes = new ArrayList<>();
    r.get("modes").forEach(m -> shownModes.add(m.asText()));
    assertThat(shownModes).containsSubsequence("agent", "idle");
    assertThat(shownModes).last().isEqualTo("idle");
  }

  @Test
  void aReloadShowsTheSameBlocksFromTheStore() throws Exception {
    fx = new PageFixture(tmp, twoSteps(), true);
    JsonNode r = BrowserHarness.run(config("reload", "What is this project about?"));

    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("before")).hasSize(5);
    assertThat(r.get("after")).isEqualTo(r.get("before"));
    assertThat(r.get("url").asText()).endsWith("#s=" + fx.session.id());
    List<String> modes = new ArrayList<>();
    for (JsonNode b : r.get("after")) {
      modes.add(b.get("mode").asText());
      assertThat(b.get("seq").asInt()).isEqualTo(modes.size() - 1);
    }
    assertThat(modes).isEqualTo(storedModes());
    ChatTurn stored = fx.store.store().listTurns(fx.session.id()).get(0);
    TurnBlock.Responding answer = (TurnBlock.Responding) stored.blocks().get(4);
    assertThat(answer.content()).isEqualTo(ANSWER);
  }

  /** A turn "earlier", stored running, to add blocks to and finish. */
  private ChatTurn earlierTurn(java.time.Instant now) {
    ChatTurn earlier = new ChatTurn(dev.gadget.core.Ids.next(), fx.session.id(),
        fx.user.user().id(), 0, TurnStatus.PROCESSING, "earlier", "build", List.of(), List.of(),
        null, now, null, null, null);
    fx.store.store().createTurn(earlier);
    return earlier;
  }

  @Test
  void aSupersededBlockIsShownDimmedAndStaysSoAfterAReload() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.of(ScriptedLlmClient.reply().text("Now.")
        .build()), true);
    // An earlier turn whose first model round a drone crash interrupted, then redone.
    java.time.Instant now = java.time.Instant.now();
    ChatTurn earlier = earlierTurn(now);
    fx.store.store().appendBlock(earlier.id(), new TurnBlock.Responding(0, now, "Half an", true));
    fx.store.store().appendBlock(earlier.id(), new TurnBlock.Responding(1, now, "The answer."));
    fx.store.store().finalizeTurn(earlier.id(), TurnStatus.FINISHED, null, null, now);

    JsonNode r = BrowserHarness.run(config("reload", "and now?"));
    assertThat(r.get("status").asText()).isEqualTo("finished");
    for (JsonNode blocks : List.of(r.get("before"), r.get("after"))) {
      List<String> shown = new ArrayList<>();
      for (JsonNode b : blocks) {
        if (b.get("turnId").asText().equals(earlier.id())) {
          shown.add((b.get("superseded").asBoolean() ? "dimmed " : "") + b.get("text").asText()
              .trim());
        }
      }
      assertThat(shown).containsExactly("dimmed Half an", "The answer.");
    }
  }

  @Test
  void aCompactionBlockAndHowFullTheContextWasAreShown() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.of(ScriptedLlmClient.reply().text("Now.")
        .build()), true);
    java.time.Instant now = java.time.Instant.now();
    ChatTurn earlier = earlierTurn(now);
    fx.store.store().appendBlock(earlier.id(), new TurnBlock.Compaction(0, now,
        new dev.gadget.core.model.ContextCompaction("THE SUMMARY <b>not bold</b>",
            "37 messages: from 12 earlier turns", 37, 9012, 2480, earlier.id(), null, false)));
    fx.store.store().appendBlock(earlier.id(), new TurnBlock.Responding(1, now, "Done."));
    fx.store.store().finalizeTurn(earlier.id(), TurnStatus.FINISHED,
        new dev.gadget.core.model.TurnStats(1, 2, 0, 0, 1, 1000, 8100, 9000), null, now);

    JsonNode r = BrowserHarness.run(config("context", "and now?"));

    assertThat(r.get("status").asText()).isEqualTo("finished");
    JsonNode compaction = null;
    for (JsonNode b : r.get("blocks")) {
      if (b.get("mode").asText().equals("compaction")) {
        compaction = b;
      }
    }
    assertThat(compaction).isNotNull();
    assertThat(compaction.get("turnId").asText()).isEqualTo(earlier.id());
    assertThat(compaction.get("text").asText()).contains("Context compacted")
        .contains("37 messages: from 12 earlier turns · 9,012 → 2,480 tokens")
        .contains("THE SUMMARY <b>not bold</b>"); // as text, never as markup
    assertThat(r.get("summaryVisible").asBoolean()).isTrue();
    JsonNode meters = r.get("meters");
    assertThat(meters).hasSize(2);
    assertThat(meters.get(0).get("text").asText()).isEqualTo("context 90%");
    assertThat(meters.get(0).get("full").asBoolean()).isTrue();
    assertThat(meters.get(0).get("title").asText()).contains("8,100 of 9,000 tokens");
    // the new turn's stats, as the drone measured its request against the default budget
    assertThat(meters.get(1).get("text").asText()).matches("context \\d+%");
    ChatTurn now2 = fx.store.store().listTurns(fx.session.id()).get(1);
    assertThat(now2.stats().contextBudget()).isEqualTo(32_000);
    assertThat(meters.get(1).get("title").asText())
        .contains(String.format(java.util.Locale.ENGLISH, "%,d of 32,000 tokens",
            now2.stats().contextTokens()));
  }

  @Test
  void hostileMarkdownDoesNotExecute() throws Exception {
    String payload = String.join("\n\n",
        "Here you go:",
        "<img src=x onerror=\"window.__pwned='img'\">",
        "[click me](javascript:window.__pwned='link')",
        "<a href=\"javascript:window.__pwned='a'\">click me too</a>",
        "<script>window.__pwned='script'</script>",
        "<svg><script>window.__pwned='svg'</script><circle onload=\"window.__pwned='svg2'\"/></svg>",
        "<iframe src=\"javascript:parent.__pwned='iframe'\"></iframe>",
        "<details open ontoggle=\"window.__pwned='toggle'\"><summary>x</summary>y</details>",
        "[data](data:text/html,<script>alert(1)</script>)",
        "<form><button formaction=\"javascript:window.__pwned='form'\">go</button></form>",
        "![img](x\" onerror=\"window.__pwned='attr')",
        "<div id=\"prompt\">fake prompt</div><span id=\"send\">fake send</span>"
            + "<span id=\"cancel\" name=\"cancel\">fake cancel</span>",
        "The end.",
        // last: its unclosed <style> swallows what follows, as a browser's parser would
        "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__pwned='mxss'\">");
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        ScriptedLlmClient.reply()
            .thinking("<img src=x onerror=\"window.__pwned='thinking'\"> thinking")
            .toolCall("read_file", "{\"path\":\"<img src=x onerror=window.__pwned='tool'>\"}")
            .build(),
        ScriptedLlmClient.reply().text(payload).build());
    fx = new PageFixture(tmp, llm, false); // no CSP: DOMPurify alone must hold
    Map<String, Object> c = config("hostile",
        "Show <img src=x onerror=\"window.__pwned='prompt'\"> please");
    c.put("ignoreResourceErrors", true); // the harmless <img src=x> left in fails to load
    JsonNode r = BrowserHarness.run(c);

    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("control").asBoolean()).as("an unsanitized handler does fire here").isTrue();
    assertThat(r.get("pwned").isNull()).as("window.__pwned = %s", r.get("pwned")).isTrue();
    assertThat(r.get("handlers")).as("on* / javascript: / data:text/html attributes").isEmpty();
    assertThat(r.get("scripts").asInt()).isZero();
    assertThat(r.get("iframes").asInt()).isZero();
    assertThat(r.get("namedInReply").asInt()).as("elements with id or name in the reply").isZero();
    assertThat(r.get("controlsIntact").asBoolean()).as("the page's own controls").isTrue();
    assertThat(r.get("clicked").asInt()).as("links clicked").isGreaterThanOrEqualTo(1);
    assertThat(r.get("afterClicks").get("pwned").isNull()).as("after clicking the links: %s",
        r.get("afterClicks")).isTrue();
    assertThat(r.get("afterClicks").get("intact").asBoolean()).as("the page is still there")
        .isTrue();
    String text = r.get("text").asText();
    assertThat(text).contains("Here you go:", "The end.")
        // shown as text where it is not Markdown: the prompt and tool parameters
        .contains("Show <img src=x onerror=\"window.__pwned='prompt'\"> please")
        .contains("window.__pwned='tool'")
        // thinking is Markdown, sanitized as a reply is: its <img> an element without handler
        .doesNotContain("window.__pwned='thinking'");
  }
}
