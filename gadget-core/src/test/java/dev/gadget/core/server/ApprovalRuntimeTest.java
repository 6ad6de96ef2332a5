package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.llm.LlmMessage;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.ToolApproval;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Approval on the wire: a real server and drone (in-memory transport, real git, the drone's
 * commands in a real bubblewrap sandbox) and pages that answer.
 */
class ApprovalRuntimeTest extends RuntimeTestBase {

  private static ScriptedLlmClient appending() {
    return ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("Appending.")
            .toolCall("run_command", "{\"command\":\"echo ran >> log.txt\"}").build())
        .reply(ScriptedLlmClient.reply().text("Done.").build())
        .build();
  }

  private static String submit(Page page, String session) throws Exception {
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", session, "prompt", "append a line"));
    assertThat(reply.has("error")).as("submit error: %s", reply).isFalse();
    return reply.get("turnId").asText();
  }

  private static List<Page.Event> of(Page page, String event) {
    return page.events.stream().filter(e -> e.name().equals(event)).toList();
  }

  private static ToolApproval storedApproval(RuntimeFixture fx, String turn) {
    ChatTurn stored = fx.store.findTurn(turn).orElseThrow();
    return stored.blocks().stream().filter(b -> b instanceof TurnBlock.Tool)
        .map(b -> ((TurnBlock.Tool) b).content().approval()).findFirst().orElse(null);
  }

  @Test
  void twoPagesRaceToAnswerAndTheFirstAnswerIsTheOnlyDecision() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = appending();
    Path ws = tmp.resolve("ws");
    fx.drone(ada, ws, llm);
    Page one = fx.page(ada.pageToken()).connected();
    Page two = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(one);
    two.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    JsonNode policy = one.request(Protocol.APPROVAL_POLICY,
        Map.of("sessionId", session, "policy", "commands"));
    assertThat(policy.get("policy").asText()).isEqualTo("commands");
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());

    String turn = submit(one, session);
    await("both pages see the call wait", () -> !of(one, Protocol.APPROVAL_PENDING).isEmpty()
        && !of(two, Protocol.APPROVAL_PENDING).isEmpty());
    JsonNode pending = of(two, Protocol.APPROVAL_PENDING).get(0).payload();
    assertThat(pending.get("toolName").asText()).isEqualTo("run_command");
    assertThat(pending.get("command").asText()).isEqualTo("echo ran >> log.txt");
    assertThat(pending.get("turnId").asText()).isEqualTo(turn);
    assertThat(Files.exists(ws.resolve("sample/log.txt"))).as("ran before approval").isFalse();

    // A page that comes now sees the waiting call in its snapshot.
    Page late = fx.page(ada.pageToken()).connected();
    JsonNode snapshot = late.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    assertThat(snapshot.path("approvals").path("policy").asText()).isEqualTo("commands");
    assertThat(snapshot.path("approvals").path("pending")).hasSize(1);
    assertThat(snapshot.path("approvals").path("pending").get(0).get("callId").asText())
        .isEqualTo(pending.get("callId").asText());

    CyclicBarrier together = new CyclicBarrier(2);
    Map<String, Object> approve = Map.of("turnId", turn, "callId",
        pending.get("callId").asText(), "decision", "approved");
    Map<String, Object> deny = Map.of("turnId", turn, "callId",
        pending.get("callId").asText(), "decision", "denied", "reason", "not now");
    CompletableFuture<JsonNode> a = CompletableFuture.supplyAsync(() -> answer(one, approve,
        together));
    CompletableFuture<JsonNode> b = CompletableFuture.supplyAsync(() -> answer(two, deny,
        together));
    JsonNode ra = a.get(20, TimeUnit.SECONDS);
    JsonNode rb = b.get(20, TimeUnit.SECONDS);
    assertThat(List.of(ra.path("ok").asBoolean(), rb.path("ok").asBoolean()))
        .containsExactlyInAnyOrder(true, false);
    JsonNode loser = ra.path("ok").asBoolean() ? rb : ra;
    assertThat(loser.get("error").asText()).startsWith("this call was already decided: ");

    JsonNode done = one.completion(turn);
    assertThat(done.get("status").asText()).isEqualTo("finished");
    // Every page saw the one decision.
    for (Page p : List.of(one, two, late)) {
      await("the decision on every page", () -> of(p, Protocol.APPROVAL_DECIDED).size() == 1);
    }
    JsonNode decided = of(one, Protocol.APPROVAL_DECIDED).get(0).payload().get("approval");
    assertThat(of(two, Protocol.APPROVAL_DECIDED).get(0).payload().get("approval"))
        .isEqualTo(decided);
    assertThat(decided.get("decidedBy").asText()).isEqualTo("ada");
    ToolApproval stored = storedApproval(fx, turn);
    assertThat(stored).isNotNull();
    assertThat(stored.decidedBy()).isEqualTo("ada");
    if (stored.approved()) {
      assertThat(Files.readAllLines(ws.resolve("sample/log.txt"))).containsExactly("ran");
    } else {
      assertThat(stored.reason()).isEqualTo("not now");
      assertThat(Files.exists(ws.resolve("sample/log.txt"))).isFalse();
      List<LlmMessage> second = llm.requests().get(1).messages();
      assertThat(second.get(second.size() - 1).content())
          .isEqualTo("Error: denied: not now. It did not run.");
    }
    assertThat(stored.decision().name().toLowerCase())
        .isEqualTo(ra.path("ok").asBoolean() ? "approved" : "denied");
  }

  private static JsonNode answer(Page page, Map<String, Object> answer,
      CyclicBarrier together) {
    try {
      together.await(20, TimeUnit.SECONDS);
      return page.request(Protocol.ANSWER_APPROVAL, answer);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void anUnansweredCallIsDeniedByTheTimeoutAndTheTurnGoesOn() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b.approvalTimeout(Duration.ofSeconds(1))
        .approvalPolicy(dev.gadget.core.agent.ApprovalPolicy.COMMANDS));
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = appending();
    Path ws = tmp.resolve("ws");
    fx.drone(ada, ws, llm);
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = submit(page, session);

    JsonNode done = page.completion(turn);
    assertThat(done.get("status").asText()).isEqualTo("finished");
    assertThat(Files.exists(ws.resolve("sample/log.txt"))).isFalse();
    ToolApproval stored = storedApproval(fx, turn);
    assertThat(stored.decision()).isEqualTo(ToolApproval.Decision.DENIED);
    assertThat(stored.decidedBy()).isEqualTo(ToolApproval.TIMEOUT);
    assertThat(stored.reason()).isEqualTo("nobody answered within 1 s");
    List<LlmMessage> second = llm.requests().get(1).messages();
    assertThat(second.get(second.size() - 1).content())
        .isEqualTo("Error: denied: nobody answered within 1 s. It did not run.");
    // An answer after the timeout changes nothing.
    JsonNode late = page.request(Protocol.ANSWER_APPROVAL, Map.of("turnId", turn, "callId",
        of(page, Protocol.APPROVAL_PENDING).get(0).payload().get("callId").asText(),
        "decision", "approved"));
    assertThat(late.get("error").asText()).isNotBlank();
    assertThat(fx.store.findTurn(turn).orElseThrow().status()).isEqualTo(TurnStatus.FINISHED);
  }

  @Test
  void approvedForThisChatCoversTheNextTurnsCallsWithoutAsking() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b.approvalPolicy(dev.gadget.core.agent.ApprovalPolicy.COMMANDS));
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("One.")
            .toolCall("run_command", "{\"command\":\"echo ran >> log.txt\"}").build())
        .reply(ScriptedLlmClient.reply().text("Done.").build())
        .reply(ScriptedLlmClient.reply().text("Two.")
            .toolCall("run_command", "{\"command\":\"echo ran >> log.txt\"}").build())
        .reply(ScriptedLlmClient.reply().text("Done again.").build())
        .build();
    Path ws = tmp.resolve("ws");
    fx.drone(ada, ws, llm);
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String first = submit(page, session);
    await("the call waits", () -> !of(page, Protocol.APPROVAL_PENDING).isEmpty());
    JsonNode pending = of(page, Protocol.APPROVAL_PENDING).get(0).payload();
    assertThat(page.request(Protocol.ANSWER_APPROVAL, Map.of("turnId", first, "callId",
        pending.get("callId").asText(), "decision", "approvedForSession")).get("ok")
        .asBoolean()).isTrue();
    assertThat(page.completion(first).get("status").asText()).isEqualTo("finished");

    String second = submit(page, session);
    assertThat(page.completion(second).get("status").asText()).isEqualTo("finished");
    assertThat(of(page, Protocol.APPROVAL_PENDING)).hasSize(1);
    assertThat(Files.readAllLines(ws.resolve("sample/log.txt"))).containsExactly("ran", "ran");
    assertThat(storedApproval(fx, first).decision())
        .isEqualTo(ToolApproval.Decision.APPROVED_FOR_SESSION);
    assertThat(storedApproval(fx, second).decidedBy()).isEqualTo(ToolApproval.SESSION);
  }

  @Test
  void badAnswersAreRefusedInWords() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    assertThat(page.request(Protocol.APPROVAL_POLICY, Map.of("sessionId", session))
        .get("policy").asText()).isEqualTo("never");
    JsonNode bad = page.request(Protocol.APPROVAL_POLICY,
        Map.of("sessionId", session, "policy", "sometimes"));
    assertThat(bad.get("error").asText()).contains("policy");
    JsonNode noTurn = page.request(Protocol.ANSWER_APPROVAL,
        Map.of("turnId", "t1", "callId", "c1", "decision", "approved"));
    assertThat(noTurn.get("error").asText())
        .isEqualTo("no call of this turn waits for approval (the turn is not running)");
    JsonNode badDecision = page.request(Protocol.ANSWER_APPROVAL,
        Map.of("turnId", "t1", "callId", "c1", "decision", "maybe"));
    assertThat(badDecision.get("error").asText()).contains("decision");
  }
}
