package dev.gadget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.Ids;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.OpenAiClient;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 004's face: src/test/node/seed004-client.js, a client written from seed 004's document
 * with the stock npm socket.io-client, against the real server (WebSocket transport, journaled
 * store) and a real drone running scripted model replies with real tools on a git project.
 */
class AgentFaceTest {
  @TempDir Path tmp;
  PageFixture fx;
  GadgetDrone bobsDrone;
  HttpServer model;

  @AfterEach
  void tearDown() {
    if (model != null) {
      model.stop(0);
    }
    if (bobsDrone != null) {
      bobsDrone.close();
    }
    if (fx != null) {
      fx.close();
    }
  }

  private static String plan(String... steps) {
    return BrowserToolsTest.plan("read first, then answer", steps);
  }

  private JsonNode client(String token, List<Map<String, Object>> queries, int lingerMs)
      throws Exception {
    return Seed004Client.run(fx, token, queries, 30000, lingerMs);
  }

  private static Map<String, Object> query(String prompt, String sessionId) {
    return Seed004Client.query(prompt, sessionId);
  }

  /** The log split at each query's end: what each query brought, after the greeting. */
  private static List<List<JsonNode>> perQuery(JsonNode log) {
    List<List<JsonNode>> out = new ArrayList<>();
    List<JsonNode> current = new ArrayList<>();
    int i = 0;
    for (JsonNode e : log) {
      if (i++ < 3) {
        continue; // connect, connected, tool_count
      }
      current.add(e);
      String name = e.get("event").asText();
      boolean completed = current.stream()
          .anyMatch(x -> x.get("event").asText().equals("query_complete"));
      if ((name.equals("error") && !completed) || (name.equals("tool_count") && completed)) {
        out.add(current);
        current = new ArrayList<>();
      }
    }
    return out;
  }

  private static List<String> names(List<JsonNode> events) {
    return events.stream().map(e -> e.get("event").asText().equals("agent_event")
        ? e.get("payload").get("event_type").asText() : e.get("event").asText()).toList();
  }

  private static JsonNode data(List<JsonNode> events, String type) {
    return events.stream().filter(e -> e.get("event").asText().equals("agent_event")
        && e.get("payload").get("event_type").asText().equals(type)).findFirst().orElseThrow()
        .get("payload").get("data");
  }

  private static List<JsonNode> all(List<JsonNode> events, String type) {
    return events.stream().filter(e -> e.get("event").asText().equals("agent_event")
        && e.get("payload").get("event_type").asText().equals(type))
        .map(e -> e.get("payload").get("data")).toList();
  }

  private static JsonNode payload(List<JsonNode> events, String name) {
    return events.stream().filter(e -> e.get("event").asText().equals(name)).findFirst()
        .orElseThrow().get("payload");
  }

  @Test
  void aSeed004ClientQueriesAndReceivesTheDocumentedFlow() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.of(
        ScriptedLlmClient.reply().text("Let me plan.").toolCall("update_plan",
            plan("Read the README", "in_progress", "Answer", "pending")).build(),
        ScriptedLlmClient.reply().toolCall("read_file", "{\"path\":\"README.md\"}").build(),
        ScriptedLlmClient.reply().toolCall("update_plan",
            plan("Read the README", "completed", "Answer", "in_progress")).build(),
        ScriptedLlmClient.reply().toolCall("update_plan",
            plan("Read the README", "completed", "Answer", "completed")).build(),
        ScriptedLlmClient.reply().text("It is a greeter project.").build(),
        ScriptedLlmClient.reply().toolCall("run_command",
            "{\"command\":\"echo nope; exit 3\"}").build(),
        ScriptedLlmClient.reply().text("That failed.").build(),
        ScriptedLlmClient.reply().toolCall("update_plan",
            plan("Run the check", "in_progress")).build(),
        ScriptedLlmClient.reply().toolCall("run_command",
            "{\"command\":\"echo broken; exit 4\"}").build(),
        ScriptedLlmClient.reply().toolCall("update_plan",
            plan("Run the check", "completed")).build(),
        ScriptedLlmClient.reply().text("The check failed.").build(),
        ScriptedLlmClient.reply().text("Hello!").build()), false);
    JsonNode log = client(fx.user.pageToken(), List.of(
        query("What is this project?", "my-session-1"),
        query("Run the failing thing", "my-session-1"),
        query("", "my-session-1"),
        query("Check it, in a plan", "my-session-1"),
        query("Say hello", "my-session-1")), 0);

    assertThat(log.get(0).get("event").asText()).isEqualTo("connect");
    assertThat(log.get(1).get("event").asText()).isEqualTo("connected");
    assertThat(log.get(1).get("payload").get("data").asText()).isEqualTo("Connected to agent");
    assertThat(log.get(2).get("event").asText()).isEqualTo("tool_count");
    assertThat(log.get(2).get("payload").get("count").isInt()).isTrue();
    List<List<JsonNode>> queries = perQuery(log);
    assertThat(queries).hasSize(5);

    // seed 004's "Multi-Tool Workflow Flow", with executing/execution_complete for the tool
    List<JsonNode> first = queries.get(0);
    assertThat(names(first)).containsExactly("planning_query", "plan_complete",
        "multi_tool_workflow", "workflow_start", "workflow_step", "workflow_step_tool_found",
        "workflow_step_executing", "workflow_step_complete", "workflow_step",
        "workflow_step_complete", "workflow_complete", "synthesizing_response", "complete",
        "query_complete", "session_memory", "tool_count");
    assertThat(data(first, "planning_query").get("query").asText())
        .isEqualTo("What is this project?");
    assertThat(data(first, "plan_complete").get("strategy").asText()).isEqualTo("sequential");
    assertThat(data(first, "plan_complete").get("reasoning").asText())
        .isEqualTo("read first, then answer");
    assertThat(data(first, "workflow_start").get("total_steps").asInt()).isEqualTo(2);
    assertThat(data(first, "workflow_start").get("tasks").toString())
        .isEqualTo("[\"Read the README\",\"Answer\"]");
    JsonNode step = data(first, "workflow_step");
    assertThat(step.get("step").asInt()).isEqualTo(1);
    assertThat(step.get("total").asInt()).isEqualTo(2);
    assertThat(step.get("task").asText()).isEqualTo("Read the README");
    assertThat(data(first, "workflow_step_tool_found").get("tool_name").asText())
        .isEqualTo("read_file");
    assertThat(data(first, "workflow_step_tool_found").get("similarity").asDouble())
        .isEqualTo(1.0); // the model named it
    assertThat(data(first, "workflow_step_executing").get("tool_name").asText())
        .isEqualTo("read_file");
    // what the step produced: its tool's result; the second step ran nothing and wrote nothing
    List<JsonNode> stepsDone = all(first, "workflow_step_complete");
    assertThat(stepsDone.get(0).get("result").asText()).contains("Greeter");
    assertThat(stepsDone.get(1).get("result").asText()).isEmpty();
    assertThat(data(first, "synthesizing_response").get("tool_result").asText())
        .contains("Greeter");
    assertThat(data(first, "workflow_complete").get("tool_sequence").toString())
        .isEqualTo("[\"read_file\"]");
    assertThat(data(first, "complete").get("response").asText())
        .isEqualTo("It is a greeter project.");
    JsonNode done = payload(first, "query_complete");
    assertThat(done.get("success").asBoolean()).isTrue();
    assertThat(done.get("response").asText()).isEqualTo("It is a greeter project.");
    assertThat(done.get("session_id").asText()).isEqualTo("my-session-1");
    assertThat(done.get("metadata").get("tool_name").asText()).isEqualTo("read_file");
    assertThat(done.get("metadata").get("synthesized").asBoolean()).isFalse();
    assertThat(done.get("metadata").get("tool_result").asText()).contains("Greeter");
    JsonNode memory = payload(first, "session_memory");
    assertThat(memory.get("session_id").asText()).isEqualTo("my-session-1");
    assertThat(memory.get("messages")).hasSize(2);
    assertThat(memory.get("messages").get(0).get("role").asText()).isEqualTo("user");
    assertThat(memory.get("messages").get(0).get("content").asText())
        .isEqualTo("What is this project?");
    assertThat(memory.get("messages").get(1).get("role").asText()).isEqualTo("assistant");
    assertThat(memory.get("messages").get(1).get("content").asText())
        .isEqualTo("It is a greeter project.");
    assertThat(memory.get("messages").get(1).get("message_index").asInt()).isEqualTo(1);
    assertThat(Instant.parse(memory.get("messages").get(1).get("created_at").asText()))
        .isBefore(Instant.now().plusSeconds(1));
    assertThat(first.get(first.size() - 1).get("payload").get("count").asInt())
        .isEqualTo(CodingTools.all().size());

    // the same session_id goes on in the same session; a failed tool is execution_failed
    List<JsonNode> second = queries.get(1);
    assertThat(names(second)).containsExactly("executing", "execution_failed",
        "synthesizing_response", "complete", "query_complete", "session_memory", "tool_count");
    assertThat(data(second, "execution_failed").get("error").asText())
        .startsWith("Error: exit code: 3");
    JsonNode memory2 = payload(second, "session_memory");
    assertThat(memory2.get("messages")).hasSize(4);
    assertThat(memory2.get("messages").get(3).get("content").asText()).isEqualTo("That failed.");
    assertThat(memory2.get("messages").get(3).get("message_index").asInt()).isEqualTo(3);

    assertThat(names(queries.get(2))).containsExactly("error");
    assertThat(payload(queries.get(2), "error").get("message").asText())
        .isEqualTo("No prompt provided");

    // a step whose tool failed ends workflow_step_failed with the tool's words
    List<JsonNode> fourth = queries.get(3);
    assertThat(names(fourth)).containsExactly("planning_query", "plan_complete",
        "workflow_start", "workflow_step", "workflow_step_tool_found", "workflow_step_executing",
        "workflow_step_failed", "workflow_complete", "synthesizing_response", "complete",
        "query_complete", "session_memory", "tool_count");
    assertThat(data(fourth, "plan_complete").get("strategy").asText()).isEqualTo("single");
    assertThat(data(fourth, "workflow_step_failed").get("error").asText())
        .startsWith("Error: exit code: 4").contains("broken");
    assertThat(data(fourth, "workflow_step_failed").get("step").asInt()).isEqualTo(1);

    // no tool ran: metadata's tool_name and tool_result are still strings
    List<JsonNode> fifth = queries.get(4);
    assertThat(names(fifth)).containsExactly("synthesizing_response", "complete",
        "query_complete", "session_memory", "tool_count");
    assertThat(data(fifth, "synthesizing_response").get("tool_result").isTextual()).isTrue();
    JsonNode meta = payload(fifth, "query_complete").get("metadata");
    assertThat(meta.get("tool_name").isTextual()).isTrue();
    assertThat(meta.get("tool_name").asText()).isEmpty();
    assertThat(meta.get("tool_result").isTextual()).isTrue();
    assertThat(meta.get("tool_result").asText()).isEmpty();

    // a session of the user's default project, named after the client's id, with both turns
    List<ChatSession> sessions = fx.store.store().listSessions(fx.user.user().id(), null);
    ChatSession made = sessions.stream()
        .filter(s -> s.name().equals("Agent session my-session-1")).findFirst().orElseThrow();
    assertThat(made.projectId()).isEqualTo(fx.project.id());
    assertThat(fx.store.store().listTurns(made.id())).extracting(ChatTurn::prompt)
        .containsExactly("What is this project?", "Run the failing thing",
            "Check it, in a plan", "Say hello");
  }

  @Test
  void aModelThatRefusesIsAnErrorInTheProvidersWordsAndNoEmptyReplyIsRemembered()
      throws Exception {
    // a real OpenAI-compatible HTTP server on 127.0.0.1 that refuses every request with 400
    String refusal = "{\"error\":{\"message\":\"Invalid schema for function 'read_file': "
        + "'path' is not valid\",\"type\":\"invalid_request_error\",\"param\":null,"
        + "\"code\":null}}";
    model = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    model.createContext("/v1/chat/completions", ex -> {
      ex.getRequestBody().readAllBytes();
      byte[] b = refusal.getBytes(StandardCharsets.UTF_8);
      ex.getResponseHeaders().add("Content-Type", "application/json");
      ex.sendResponseHeaders(400, b.length);
      ex.getResponseBody().write(b);
      ex.close();
    });
    model.start();
    fx = new PageFixture(tmp, OpenAiClient.builder()
        .baseUrl("http://127.0.0.1:" + model.getAddress().getPort() + "/v1").build(), false);
    JsonNode log = client(fx.user.pageToken(), List.of(query("Read the README", "refused"),
        query("Try again", "refused")), 0);

    List<List<JsonNode>> queries = perQuery(log);
    assertThat(queries).hasSize(2);
    for (List<JsonNode> q : queries) {
      assertThat(names(q)).containsExactly("query_complete", "error", "session_memory",
          "tool_count");
      assertThat(payload(q, "error").get("message").asText())
          .startsWith("The model call failed: ").contains("HTTP 400",
              "Invalid schema for function 'read_file': 'path' is not valid");
      JsonNode done = payload(q, "query_complete");
      assertThat(done.get("success").asBoolean()).isFalse();
      assertThat(done.get("response").asText())
          .isEqualTo(payload(q, "error").get("message").asText());
      assertThat(done.get("metadata").get("tool_name").asText()).isEmpty();
    }
    // the memory holds the two prompts and no empty assistant message
    JsonNode memory = payload(queries.get(1), "session_memory");
    assertThat(memory.get("messages")).hasSize(2);
    assertThat(memory.get("messages").get(0).get("role").asText()).isEqualTo("user");
    assertThat(memory.get("messages").get(1).get("role").asText()).isEqualTo("user");
    assertThat(memory.get("messages").get(1).get("content").asText()).isEqualTo("Try again");
  }

  @Test
  void bobsClientNeverSeesAlicesSessions() throws Exception {
    fx = new PageFixture(tmp, ScriptedLlmClient.builder().tokenDelay(Duration.ofMillis(30))
        .reply(ScriptedLlmClient.reply().text("Alice's secret answer, told slowly to overlap "
            + "with Bob's question.").build()).build(), false);
    Accounts.Issued bob = Accounts.create(fx.store.store(), "bob");
    Path bobsProject = SampleProject.create(tmp.resolve("bob-greeter"));
    fx.store.store().createProject(new Project(Ids.next(), bob.user().id(), "Bob's",
        "bobs", bobsProject.toString(), Instant.now()));
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    bobsDrone = DroneCommand.start(fx.app.socketUri(), bob.droneToken(), tmp.resolve("bob-ws"),
        "bob-drone", new LlmClients(p -> ScriptedLlmClient.of(
            ScriptedLlmClient.reply().text("Bob's answer.").build(),
            ScriptedLlmClient.reply().text("Bob's second answer.").build())),
        new ConsoleDroneListener(new PrintStream(console, true, StandardCharsets.UTF_8), "bob",
            new CompletableFuture<>()));
    PageFixture.await("bob's drone", () -> console.toString(StandardCharsets.UTF_8)
        .contains("connected"));

    // Bob names Alice's session by its id and by the id Alice's client uses, while Alice's
    // query streams.
    String alicesSession = fx.session.id();
    CompletableFuture<JsonNode> alice = CompletableFuture.supplyAsync(() -> {
      try {
        return client(fx.user.pageToken(), List.of(query("alice's secret question",
            alicesSession)), 0);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    PageFixture.await("alice's turn", () -> !fx.store.store().listTurns(alicesSession)
        .isEmpty());
    JsonNode bobsLog = client(bob.pageToken(), List.of(query("bob's question", alicesSession),
        query("bob's second question", "alices-name")), 1500);
    JsonNode alicesLog = alice.get(60, TimeUnit.SECONDS);

    String bobsText = bobsLog.toString();
    assertThat(bobsText).doesNotContain("secret");
    String aliceTurn = fx.store.store().listTurns(alicesSession).get(0).id();
    assertThat(bobsText).doesNotContain(aliceTurn);
    List<List<JsonNode>> bobs = perQuery(bobsLog);
    assertThat(bobs).hasSize(2);
    assertThat(payload(bobs.get(0), "query_complete").get("response").asText())
        .isEqualTo("Bob's answer.");
    JsonNode memory = payload(bobs.get(0), "session_memory");
    assertThat(memory.get("session_id").asText()).isEqualTo(alicesSession);
    assertThat(memory.get("messages")).hasSize(2);
    assertThat(memory.get("messages").get(0).get("content").asText())
        .isEqualTo("bob's question");
    // Alice's session holds only her turn; Bob's queries made sessions of his own
    assertThat(fx.store.store().listTurns(alicesSession)).extracting(ChatTurn::prompt)
        .containsExactly("alice's secret question");
    assertThat(fx.store.store().listSessions(bob.user().id(), null)).extracting(
        ChatSession::name).containsExactlyInAnyOrder("Agent session " + alicesSession,
        "Agent session alices-name");

    List<JsonNode> alices = perQuery(alicesLog).get(0);
    assertThat(payload(alices, "query_complete").get("response").asText())
        .startsWith("Alice's secret answer");
    assertThat(alicesLog.toString()).doesNotContain("bob's");
  }
}
