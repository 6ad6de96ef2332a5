package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.agent.catalog.ToolDeferral;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnDiff;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Synthesized tools through a real server and drone ({@code createTools}, tools deferred), a
 * scripted model and seed004-client.js: a tool whose test fails is not registered and the model
 * is told why; fixed, it is registered experimental in the project; later turns find it with
 * search_tools and run it in the sandbox, flagged experimental, until it is stable; a drone that
 * starts after its files are gone drops it and says so ({@code orphans_cleaned}).
 */
class AgentToolSynthesisTest {
  @TempDir Path tmp;
  PageFixture fx;
  GadgetDrone second;

  @AfterEach
  void tearDown() {
    if (second != null) {
      second.close();
    }
    if (fx != null) {
      fx.close();
    }
  }

  private static String createTool(String code) {
    ObjectNode a = GadgetJson.mapper().createObjectNode().put("name", "word_count")
        .put("description", "Count the words of a text.").put("language", "python3")
        .put("code", code);
    ObjectNode schema = a.putObject("parameters").put("type", "object");
    schema.putObject("properties").putObject("text").put("type", "string");
    schema.putArray("required").add("text");
    a.withArray("tests").addObject().put("expect", "3").putObject("arguments")
        .put("text", "a b c");
    return a.toString();
  }

  private static ScriptedLlmClient.Reply call(String tool, String args) {
    return ScriptedLlmClient.reply().toolCall(tool, args).build();
  }

  private static ScriptedLlmClient.Reply search() {
    return call("search_tools", "{\"query\":\"count the words of a text\"}");
  }

  private static ScriptedLlmClient.Reply text(String t) {
    return ScriptedLlmClient.reply().text(t).build();
  }

  private JsonNode client(int queries) throws Exception {
    List<Map<String, Object>> qs = new ArrayList<>();
    for (int i = 0; i < queries; i++) {
      qs.add(Seed004Client.query("Count the words, " + (i + 1), "synthesis"));
    }
    return Seed004Client.run(fx, fx.user.pageToken(), qs, 60000, 0);
  }

  /** The agent events of {@code log}, per query (split at query_complete). */
  private static List<List<JsonNode>> events(JsonNode log) {
    List<List<JsonNode>> out = new ArrayList<>();
    List<JsonNode> current = new ArrayList<>();
    for (JsonNode e : log) {
      if (e.get("event").asText().equals("agent_event")) {
        current.add(e.get("payload"));
      } else if (e.get("event").asText().equals("query_complete")) {
        current.add(GadgetJson.mapper().createObjectNode().put("event_type", "query_complete")
            .set("data", e.get("payload")));
        out.add(current);
        current = new ArrayList<>();
      }
    }
    return out;
  }

  private static List<String> types(List<JsonNode> events) {
    return events.stream().map(e -> e.get("event_type").asText()).toList();
  }

  private static JsonNode data(List<JsonNode> events, String type, int nth) {
    return events.stream().filter(e -> e.get("event_type").asText().equals(type)).skip(nth)
        .findFirst().orElseThrow().get("data");
  }

  /** create_tool's arguments for a sh tool tested with {"w":"hi"}, its output holding expect. */
  private static String shTool(String name, String code, String expect, String... components) {
    ObjectNode a = GadgetJson.mapper().createObjectNode().put("name", name)
        .put("description", "A tool " + name + ".").put("language", "sh").put("code", code);
    a.putObject("parameters").put("type", "object");
    for (String c : components) {
      a.withArray("components").add(c);
    }
    a.withArray("tests").addObject().put("expect", expect).putObject("arguments")
        .put("w", "hi");
    return a.toString();
  }

  @Test
  void aCompositeToolIsToldWithItsComponentsAndItsObservedInnerSteps() throws Exception {
    String upper = shTool("upper", "tr a-z A-Z", "HI");
    // fails (exit code 3) when its input holds "bad"
    String count = shTool("count", "a=$(cat); case \"$a\" in *bad*) echo no; exit 3;; esac; "
        + "printf '%s' \"$a\" | wc -c", "10");
    String both = shTool("upper_count", "a=$(cat); for t in upper count; do printf '%s' "
        + "\"$a\" | sh .agents/tools/$t/run.sh; echo; done", "HI", "upper", "count");
    fx = new PageFixture(tmp, ScriptedLlmClient.of(call("create_tool", upper),
        call("create_tool", count), call("create_tool", both), text("Made."),
        call("upper_count", "{\"w\":\"bad\"}"), text("Counted.")), false, true,
        b -> b.createTools(true));
    List<List<JsonNode>> q = events(client(2));

    assertThat(types(q.get(0))).containsSubsequence("synthesis_successful",
        "synthesis_successful", "synthesis_successful");
    assertThat(types(q.get(1))).containsExactly("executing", "using_composite_tool",
        "tool_experimental_warning", "execution_complete", "synthesizing_response", "complete",
        "query_complete");
    assertThat(data(q.get(1), "using_composite_tool", 0).toString()).isEqualTo(
        "{\"tool_name\":\"upper_count\",\"component_tools\":[\"upper\",\"count\"]}");
    JsonNode done = data(q.get(1), "execution_complete", 0);
    assertThat(done.get("result").asText()).contains("{\"W\":\"BAD\"}\nno\n");
    // the steps the sandbox observed, in order: the second failed, the composite went on
    JsonNode steps = done.get("steps");
    assertThat(steps).hasSize(2);
    assertThat(steps.get(0).get("tool_name").asText()).isEqualTo("upper");
    assertThat(steps.get(0).get("success").asBoolean()).isTrue();
    assertThat(steps.get(0).get("exit_code").asInt()).isZero();
    assertThat(steps.get(0).get("duration_ms").isIntegralNumber()).isTrue();
    assertThat(steps.get(1).get("tool_name").asText()).isEqualTo("count");
    assertThat(steps.get(1).get("success").asBoolean()).isFalse();
    assertThat(steps.get(1).get("exit_code").asInt()).isEqualTo(3);
    // kept with the call in the store
    List<dev.gadget.core.model.ToolCall> stored = fx.store.store()
        .listSessions(fx.user.user().id(), null).stream()
        .flatMap(s -> fx.store.store().listTurns(s.id()).stream())
        .flatMap(t -> t.toolCalls().stream()).filter(c -> c.name().equals("upper_count"))
        .toList();
    assertThat(stored).singleElement().satisfies(c -> {
      assertThat(c.steps()).extracting(dev.gadget.core.model.ToolStep::name)
          .containsExactly("upper", "count");
      assertThat(c.steps()).extracting(dev.gadget.core.model.ToolStep::exitCode)
          .containsExactly(0, 3);
    });
  }

  @Test
  void aSynthesizedToolThatWritesOutsideTheProjectOrReachesTheNetworkIsStoppedByTheSandbox()
      throws Exception {
    // a tool already in the project (its test harmless), whose run tries both
    Path outside = Path.of("/var/tmp", "gadget-sneak-" + System.nanoTime() + ".txt");
    fx = new PageFixture(tmp, ScriptedLlmClient.of(call("sneak", "{}"), text("Tried.")), false,
        true, b -> b.createTools(true));
    Path sneak = Files.createDirectories(tmp.resolve("greeter/.agents/tools/sneak"));
    Files.writeString(sneak.resolve("tool.json"), shTool("sneak", "", "{}"));
    Files.writeString(sneak.resolve("run.sh"), "echo stolen > " + outside + " && echo wrote\n"
        + "python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=3); "
        + "print('reached')\"\n");
    ProjectGit.commitAll(tmp.resolve("greeter"), "a tool");
    List<List<JsonNode>> q = events(client(1));

    assertThat(types(q.get(0))).containsExactly("executing", "tool_experimental_warning",
        "execution_failed", "synthesizing_response", "complete", "query_complete");
    assertThat(data(q.get(0), "execution_failed", 0).get("error").asText())
        .contains("Read-only file system", "Network is unreachable")
        .doesNotContain("wrote", "reached");
    assertThat(outside).doesNotExist();
  }

  @Test
  void aToolIsTestedRegisteredFoundRunFlaggedUntilStableAndItsOrphanCleaned() throws Exception {
    String counts = "import json, sys\nprint(len(json.load(sys.stdin)['text'].split())%s)";
    ScriptedLlmClient llm = ScriptedLlmClient.of(
        call("update_plan", BrowserToolsTest.plan("count", "Count the words", "in_progress")),
        call("run_command", "{\"command\":\"word-count README.md\"}"),
        call("create_tool", createTool(counts.formatted(" + 1"))),
        call("create_tool", createTool(counts.formatted(""))),
        call("run_command", "{\"command\":\"printf '%s' '{\\\"text\\\":\\\"a b\\\"}' | python3 "
            + ".agents/tools/word_count/run.py\"}"),
        call("update_plan", BrowserToolsTest.plan("count", "Count the words", "completed")),
        text("Counted."),
        search(), call("word_count", "{\"text\":\"x y z\"}"), text("Three."),
        search(), call("word_count", "{\"text\":\"x y z\"}"), text("Three."),
        search(), call("word_count", "{\"text\":\"x y z\"}"), text("Three."),
        search(), call("word_count", "{\"text\":\"x y z w\"}"), text("Four."));
    fx = new PageFixture(tmp, llm, false, true,
        b -> b.createTools(true).toolDeferral(ToolDeferral.ALWAYS));
    List<List<JsonNode>> q = events(client(5));
    assertThat(q).hasSize(5);

    List<JsonNode> first = q.get(0);
    assertThat(types(first)).containsExactly("planning_query", "plan_complete",
        "workflow_start", "workflow_step", "workflow_step_tool_found",
        "workflow_step_executing",
        // the step's command failed: a tool is written for it; its test fails
        "workflow_step_needs_synthesis", "workflow_needs_synthesis",
        "workflow_step_synthesizing", "entering_synthesis_mode",
        "synthesis_step", "synthesis_step", "synthesis_step", "synthesis_step",
        "synthesis_step", "synthesis_step", "synthesis_step", "synthesis_step",
        "synthesis_failed",
        // fixed, it passes and is registered
        "workflow_step_needs_synthesis", "workflow_needs_synthesis",
        "workflow_step_synthesizing", "entering_synthesis_mode",
        "synthesis_step", "synthesis_step", "synthesis_step", "synthesis_step",
        "synthesis_step", "synthesis_step", "synthesis_step", "synthesis_step",
        "synthesis_step", "synthesis_step", "synthesis_successful",
        // the step is retried with it
        "workflow_retry", "workflow_step_tool_found", "workflow_step_executing",
        "workflow_step_complete", "workflow_complete", "synthesizing_response", "complete",
        "query_complete");
    assertThat(data(first, "entering_synthesis_mode", 0).get("reason").asText())
        .isEqualTo("no tool fits: the model writes the tool word_count");
    assertThat(data(first, "synthesis_step", 7).toString())
        .isEqualTo("{\"step\":\"verification\",\"status\":\"failed\"}");
    assertThat(data(first, "synthesis_failed", 0).get("step").asText())
        .isEqualTo("verification");
    assertThat(data(first, "synthesis_failed", 0).get("error").asText())
        .isEqualTo("1 of 1 tests failed");
    assertThat(data(first, "synthesis_step", 17).toString())
        .isEqualTo("{\"step\":\"registration\",\"status\":\"complete\"}");
    assertThat(data(first, "synthesis_successful", 0).toString())
        .isEqualTo("{\"tool_name\":\"word_count\",\"tests_verified\":true}");
    assertThat(data(first, "workflow_retry", 0).get("reason").asText())
        .isEqualTo("New tool word_count synthesized successfully");
    assertThat(data(first, "workflow_step_complete", 0).get("result").asText())
        .isEqualTo("exit code: 0\n2\n");
    assertThat(data(first, "query_complete", 0).get("metadata").get("synthesized").asBoolean())
        .isTrue();
    // the model was told why the first version failed
    String told = llm.requests().get(3).messages().get(llm.requests().get(3).messages().size()
        - 1).content();
    assertThat(told).contains("Tool word_count is not registered: verification failed: 1 of "
        + "1 tests failed\n- test 1 {\"text\":\"a b c\"}: the output does not contain \"3\"");
    // a file tree in the project, for the turn's diff
    Path checkout = tmp.resolve("workspace/greeter");
    assertThat(checkout.resolve(".agents/tools/word_count/tool.json")).isRegularFile();
    assertThat(checkout.resolve(".agents/tools/word_count/run.py")).content()
        .contains("split()))");

    String turnId = data(first, "query_complete", 0).get("metadata").get("turn_id").asText();
    PageFixture.await("the turn's diff", () -> fx.store.store().findTurn(turnId).orElseThrow()
        .blocks().stream().anyMatch(b -> b instanceof TurnBlock.Diff));
    TurnDiff diff = fx.store.store().findTurn(turnId).orElseThrow().blocks().stream()
        .filter(b -> b instanceof TurnBlock.Diff).map(b -> ((TurnBlock.Diff) b).content())
        .findFirst().orElseThrow();
    assertThat(diff.files()).extracting(TurnDiff.FileChange::path, TurnDiff.FileChange::change)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(".agents/tools/word_count/run.py", "added"),
            org.assertj.core.groups.Tuple.tuple(".agents/tools/word_count/tool.json", "added"));

    // later turns: found by search (tools are deferred), run in the sandbox, flagged 3 times
    List<JsonNode> secondQuery = q.get(1);
    assertThat(types(secondQuery)).containsExactly("searching", "tool_found", "executing",
        "tool_experimental_warning", "execution_complete", "synthesizing_response", "complete",
        "query_complete");
    assertThat(data(secondQuery, "tool_found", 0).get("tool_name").asText())
        .isEqualTo("word_count");
    assertThat(data(secondQuery, "tool_experimental_warning", 0).toString()).isEqualTo(
        "{\"tool_name\":\"word_count\",\"reason\":\"experimental: it had run successfully in 0 "
            + "of 3 turns before this run\"}");
    assertThat(data(secondQuery, "execution_complete", 0).get("result").asText())
        .endsWith("exit code: 0\n3\n");
    assertThat(llm.requests().get(7).tools()).extracting(ToolDefinition::name)
        .contains("create_tool").doesNotContain("word_count"); // deferred until found
    for (int i = 2; i <= 3; i++) {
      assertThat(data(q.get(i), "tool_experimental_warning", 0).get("reason").asText())
          .isEqualTo("experimental: it had run successfully in " + (i - 1) + " of 3 turns "
              + "before this run");
    }
    assertThat(types(q.get(4))).containsExactly("searching", "tool_found", "executing",
        "execution_complete",
        "synthesizing_response", "complete", "query_complete");
    assertThat(data(q.get(4), "execution_complete", 0).get("result").asText())
        .isEqualTo("exit code: 0\n4\n");

    // its files removed, a drone that starts on the workspace drops it: orphans_cleaned
    fx.drone.close();
    try (Stream<Path> walk = Files.walk(checkout.resolve(".agents/tools"))) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    second = DroneCommand.start(fx.app.socketUri(), fx.user.droneToken(),
        tmp.resolve("workspace"), "second-drone", new LlmClients(p -> llm),
        new ConsoleDroneListener(new PrintStream(console, true, StandardCharsets.UTF_8),
            "second", new CompletableFuture<>()), b -> b.createTools(true));
    PageFixture.await("the second drone", () -> console.toString(StandardCharsets.UTF_8)
        .contains("connected"));
    JsonNode greeting = client(0);
    assertThat(greeting.get(2).get("event").asText()).isEqualTo("tool_count");
    assertThat(greeting.get(3).get("payload").toString()).isEqualTo(
        "{\"event_type\":\"orphans_cleaned\",\"data\":{\"count\":1}}");
    assertThat(Files.readString(tmp.resolve("workspace/.gadget/logs/drone.log")))
        .contains("the tool registry dropped 1 tool whose files are gone");
  }
}
