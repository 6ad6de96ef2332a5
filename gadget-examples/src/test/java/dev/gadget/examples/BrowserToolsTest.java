package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Tools in the page: a running command's live output, and failures shown as failures. */
class BrowserToolsTest extends BrowserTestBase {
  private Map<String, Object> config(String scenario, String prompt) {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("url", fx.signInUrl());
    c.put("scenario", scenario);
    c.put("prompt", prompt);
    c.put("timeoutMs", 30000);
    return c;
  }

  @Test
  void aRunningCommandShowsItsOutputAndFailedToolsShowAsFailed() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.of(
        ScriptedLlmClient.reply().text("Let me look.")
            .toolCall("read_file", "{\"path\":\".\"}")
            .toolCall("run_command", "{\"command\":\"echo first; sleep 2; echo second; exit 3\"}")
            .build(),
        ScriptedLlmClient.reply().text("Both failed.").build()), true);
    JsonNode r = BrowserHarness.run(config("tools", "Try things"));

    assertThat(r.get("status").asText()).isEqualTo("finished");
    // while the command ran: its first line shown, not yet its second, the tool open and amber
    JsonNode running = r.get("running").get(1);
    assertThat(running.get("state").asText()).isEqualTo("running");
    assertThat(running.get("status").asText()).isEqualTo("running…");
    assertThat(running.get("result").asText()).contains("first").doesNotContain("second");
    assertThat(running.get("open").asBoolean()).isTrue();
    // the read_file before it had already failed
    assertThat(r.get("running").get(0).get("state").asText()).isEqualTo("failed");
    // the same element turned into the outcome (none re-created)
    int runningId = r.get("runningIds").get(2).get("id").asInt();
    assertThat(r.get("finalIds").get(2).get("id").asInt()).isEqualTo(runningId);

    for (String phase : List.of("live", "stored")) {
      JsonNode tools = r.get(phase);
      assertThat(tools).as(phase).hasSize(2);
      for (JsonNode t : tools) {
        assertThat(t.get("state").asText()).as(phase).isEqualTo("failed");
        assertThat(t.get("dot").asText()).as(phase).isEqualTo("dot failed");
        assertThat(t.get("status").asText()).as(phase).startsWith("failed · ")
            .doesNotContain("done");
      }
      assertThat(tools.get(0).get("result").asText()).as(phase).contains("is a directory");
      assertThat(tools.get(1).get("result").asText()).as(phase)
          .startsWith("Error: exit code: 3").contains("first", "second");
    }
    List<ToolCall> stored = fx.store.store().listTurns(fx.session.id()).get(0).toolCalls();
    assertThat(stored).allSatisfy(call -> assertThat(call.failed()).isTrue());
    assertThat(stored.get(1).durationMs()).isGreaterThanOrEqualTo(2_000);
  }

  @Test
  void aToolSearchIsOneLineSayingWhatItFound() throws Exception {
    List<dev.gadget.core.agent.Tool> tools =
        new java.util.ArrayList<>(dev.gadget.core.agent.tools.CodingTools.all());
    tools.addAll(dev.gadget.core.agent.catalog.McpCatalogFixture.tools(
        dev.gadget.core.agent.catalog.McpCatalogFixture.calls()));
    fx = new PageFixture(tmp, ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("search_tools", "{\"query\":\"merge a pull request\","
            + "\"limit\":2}").build(),
        ScriptedLlmClient.reply().toolCall("search_tools", "{\"query\":\"zebra quokka\"}")
            .build(),
        ScriptedLlmClient.reply().text("Found it.").build()), true, true, b -> b.tools(tools));
    JsonNode r = BrowserHarness.run(config("toolSearch", "Merge it"));

    assertThat(r.get("status").asText()).isEqualTo("finished");
    for (String phase : List.of("live", "stored")) {
      JsonNode blocks = r.get(phase);
      assertThat(blocks).as(phase).hasSize(2);
      assertThat(blocks.get(0).get("name").asText()).isEqualTo("search_tools");
      assertThat(blocks.get(0).get("hint").asText()).isEqualTo("merge a pull request");
      assertThat(blocks.get(0).get("status").asText()).as(phase)
          .startsWith("found github__merge_pull_request, ");
      assertThat(blocks.get(1).get("status").asText()).as(phase).startsWith("no tool found");
    }
    // the footer: the last request's tools (the coding tools and the 2 found), the rest deferred
    String counts = (dev.gadget.core.agent.tools.CodingTools.all().size() + 2)
        + " tools loaded, 302 deferred";
    assertThat(r.get("liveFooter").asText()).contains(counts);
    assertThat(r.get("storedFooter").asText()).contains(counts);
  }

  @Test
  void aToolsSynthesisAndAnExperimentalToolsRunSayWhatCameOfThem() throws Exception {
    String spec = "{\"name\":\"shout\",\"description\":\"Say it loudly.\",\"parameters\":"
        + "{\"type\":\"object\"},\"language\":\"sh\",\"code\":\"%s\",\"tests\":"
        + "[{\"arguments\":{\"w\":\"hi\"},\"expect\":\"HI\"}]}";
    fx = new PageFixture(tmp, ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("create_tool", spec.formatted("cat")).build(),
        ScriptedLlmClient.reply().toolCall("create_tool", spec.formatted("tr a-z A-Z"))
            .build(),
        ScriptedLlmClient.reply().toolCall("whisper", "{\"w\":\"HUSH\"}").build(),
        ScriptedLlmClient.reply().toolCall("hush_shout", "{\"w\":\"Hi\"}").build(),
        ScriptedLlmClient.reply().text("Done.").build()), true, true, b -> b.createTools(true));
    // a tool already in the project, not yet run in any turn: experimental
    Path project = tmp.resolve("greeter");
    Path whisper = Files.createDirectories(project.resolve(".agents/tools/whisper"));
    Files.writeString(whisper.resolve("tool.json"), "{\"name\":\"whisper\",\"description\":"
        + "\"Say it softly.\",\"parameters\":{\"type\":\"object\"},\"language\":\"sh\","
        + "\"tests\":[{\"arguments\":{},\"expect\":\"{}\"}]}");
    Files.writeString(whisper.resolve("run.sh"), "tr A-Z a-z\n");
    // a composite of whisper and shout (written in the turn), then a step that fails
    Path both = Files.createDirectories(project.resolve(".agents/tools/hush_shout"));
    Files.writeString(both.resolve("tool.json"), "{\"name\":\"hush_shout\",\"description\":"
        + "\"Both.\",\"parameters\":{\"type\":\"object\"},\"language\":\"sh\",\"components\":"
        + "[\"whisper\",\"shout\"],\"tests\":[{\"arguments\":{},\"expect\":\"{}\"}]}");
    Files.writeString(both.resolve("run.sh"), "a=$(cat)\nfor t in whisper shout; do printf '%s'"
        + " \"$a\" | sh .agents/tools/$t/run.sh; done\n# tr cannot read a closed input\n"
        + "sh .agents/tools/whisper/run.sh <&-; exit 0\n");
    ProjectGit.commitAll(project, "a tool");
    JsonNode r = BrowserHarness.run(config("toolSearch", "Make a tool"));

    assertThat(r.get("status").asText()).isEqualTo("finished");
    for (String phase : List.of("live", "stored")) {
      JsonNode blocks = r.get(phase);
      assertThat(blocks).as(phase).hasSize(4);
      assertThat(blocks.get(0).get("status").asText()).as(phase).startsWith(
          "not registered: verification failed (1 of 1 tests failed)");
      assertThat(blocks.get(1).get("status").asText()).as(phase)
          .startsWith("registered shout (experimental)");
      assertThat(blocks.get(2).get("name").asText()).isEqualTo("whisper");
      assertThat(blocks.get(2).get("status").asText()).as(phase)
          .startsWith("done · experimental tool");
      assertThat(blocks.get(3).get("status").asText()).as(phase)
          .startsWith("done · experimental tool · 3 steps, 1 failed");
      assertThat(blocks.get(3).get("steps").toString()).as(phase).isEqualTo("[\"tool-step done: "
          + "whisper · done · exit 0\",\"tool-step done: shout · done · exit 0\",\"tool-step "
          + "failed: whisper · failed · exit 1\"]");
    }
  }

  /** {@code update_plan}'s arguments: step, status, step, status, …, and an explanation. */
  static String plan(String explanation, String... steps) {
    StringBuilder sb = new StringBuilder("{\"plan\":[");
    for (int i = 0; i < steps.length; i += 2) {
      sb.append(i == 0 ? "" : ",").append("{\"step\":\"").append(steps[i])
          .append("\",\"status\":\"").append(steps[i + 1]).append("\"}");
    }
    return sb.append("],\"explanation\":\"").append(explanation).append("\"}").toString();
  }

  @Test
  void thePlanChecklistUpdatesInPlace() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(20))
        .reply(ScriptedLlmClient.reply().text("A plan first.").toolCall("update_plan",
            plan("", "Read it", "in_progress", "Say it", "pending")).build())
        .reply(ScriptedLlmClient.reply().text("Read.").toolCall("update_plan",
            plan("", "Read it", "completed", "Say it", "in_progress")).build())
        .reply(ScriptedLlmClient.reply().text("Said.").toolCall("update_plan",
            plan("", "Read it", "completed", "Say it", "completed")).build())
        .reply(ScriptedLlmClient.reply().text("All done.").build()).build(), true);
    JsonNode r = BrowserHarness.run(config("plan", "Plan it"));

    assertThat(r.get("status").asText()).isEqualTo("finished");
    List<String> states = new java.util.ArrayList<>();
    java.util.Set<Integer> ids = new java.util.HashSet<>();
    for (JsonNode sample : r.get("seen")) {
      assertThat(sample.size()).as("one checklist per turn").isLessThanOrEqualTo(1);
      for (JsonNode p : sample) {
        ids.add(p.get("id").asInt());
        states.add(p.get("steps").toString());
      }
    }
    assertThat(ids).as("one element, updated in place").hasSize(1);
    assertThat(states).containsSubsequence(
        "[\"in_progress:◐Read it\",\"pending:☐Say it\"]",
        "[\"completed:☑Read it\",\"in_progress:◐Say it\"]",
        "[\"completed:☑Read it\",\"completed:☑Say it\"]");
    assertThat(r.get("updates").asInt()).isEqualTo(2);
    assertThat(r.get("reloaded").toString())
        .isEqualTo("[[\"completed:☑Read it\",\"completed:☑Say it\"]]");
    // stored as the turn's tool blocks, the plan in their parameters
    assertThat(fx.store.store().listTurns(fx.session.id()).get(0).toolCalls())
        .extracting(ToolCall::name).containsExactly("update_plan", "update_plan", "update_plan");
  }

  @Test
  void aReloadWhileACommandRunsShowsItRunningWithItsOutputSoFar() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.of(
        ScriptedLlmClient.reply().toolCall("run_command",
            "{\"command\":\"echo first; sleep 6; echo second\"}").build(),
        ScriptedLlmClient.reply().text("Ran.").build()), true);
    JsonNode r = BrowserHarness.run(config("reloadRunning", "Run it"));

    assertThat(r.get("status").asText()).isEqualTo("finished");
    assertThat(r.get("afterReload")).hasSize(1);
    assertThat(r.get("afterReload").get(0).get("state").asText()).isEqualTo("running");
    assertThat(r.get("afterReload").get(0).get("result").asText()).isEqualTo("first\n");
    assertThat(r.get("final")).hasSize(1);
    assertThat(r.get("final").get(0).get("state").asText()).isEqualTo("done");
    assertThat(r.get("final").get(0).get("result").asText())
        .isEqualTo("exit code: 0\nfirst\nsecond\n");
  }
}
