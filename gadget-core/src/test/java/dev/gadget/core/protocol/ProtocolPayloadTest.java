package dev.gadget.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatMessage;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ModelParams;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.Role;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.model.WorkspaceMode;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link Protocol#payload} on literal JSON: every refusal names the field and what was
 * expected in people's words, nothing is coerced, and every payload record Gadget sends reads
 * back unchanged.
 */
class ProtocolPayloadTest {
  static final Pattern INTERNALS = JavaWords.PATTERN;

  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00Z");

  private static String refusal(String json, Class<?> type) {
    Throwable t = catchThrowable(() -> Protocol.payload(
        List.of(GadgetJson.mapper().readTree(json)), type));
    assertThat(t).as("%s as %s", json, type.getSimpleName()).isInstanceOf(PayloadException.class);
    assertThat(t.getMessage()).doesNotContainPattern(INTERNALS);
    return t.getMessage();
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '\'', textBlock = """
      WorkspaceModeRequest | {"droneId": "d", "mode": true}  | "mode" must be one of "idle", "user", "agent"; got true
      WorkspaceModeRequest | {"droneId": "d", "mode": 1}     | "mode" must be one of "idle", "user", "agent"; got 1
      WorkspaceModeRequest | {"droneId": "d", "mode": "USER"} | "mode" must be one of "idle", "user", "agent"; got "USER"
      WorkspaceModeRequest | {"droneId": "d"}                | "mode" is required
      WorkspaceModeRequest | {"mode": "user"}                | "droneId" is required
      WorkspaceModeRequest | {"droneId": 7, "mode": "user"}  | "droneId" must be a string; got 7
      CreateProject        | {"name": 42, "slug": "s", "gitUrl": "u"} | "name" must be a string; got 42
      CreateProject        | {"name": "  ", "slug": "s", "gitUrl": "u"} | "name" must not be empty
      CreateProject        | {"name": "n", "slug": "a b", "gitUrl": "u"} | "slug" must be letters, digits, ".", "_" or "-" (a directory name); got "a b"
      CreateProject        | {"name": "n", "slug": "..", "gitUrl": "u"} | "slug" must be letters, digits, ".", "_" or "-" (a directory name); got ".."
      CreateProject        | {"name": "n", "slug": "s", "gitUrl": false} | "gitUrl" must be a string; got false
      CreateProject        | {"name": "n", "slug": "s", "gitUrl": {"a": 1}} | "gitUrl" must be a string; got an object
      CreateProject        | {"name": ["n"], "slug": "s", "gitUrl": "u"} | "name" must be a string; got a list
      WatchSession         | {}                              | "sessionId" is required
      WatchSession         | {"sessionId": null}             | "sessionId" is required
      WatchSession         | {"sessionId": 12.5}             | "sessionId" must be a string; got 12.5
      SubmitPrompt         | {"sessionId": "s"}              | "prompt" is required
      SubmitPrompt         | {"sessionId": "s", "prompt": 5} | "prompt" must be a string; got 5
      TextEvent            | {"turnId": "t", "seq": "3", "data": "x"} | "seq" must be a whole number; got "3"
      TextEvent            | {"turnId": "t", "seq": 1.5, "data": "x"} | "seq" must be a whole number; got 1.5
      TextEvent            | {"turnId": "t", "seq": null, "data": "x"} | "seq" must be a whole number; got null
      TextEvent            | {"turnId": "t", "seq": 99999999999999999999, "data": "x"} | "seq" must be a whole number; got 99999999999999999999
      TextEvent            | {"turnId": "t", "seq": 1}       | "data" is required
      TextEvent            | {"turnId": " ", "seq": 1, "data": "x"} | "turnId" must not be empty
      TextEvent            | {"turnId": 7, "seq": 1, "data": "x"} | "turnId" must be a string; got 7
      TextEvent            | {"seq": 1, "data": "x"}         | "turnId" is required
      TextEvent            | {"turnId": "t", "seq": 1, "data": 5} | "data" must be a string; got 5
      TextEvent            | {"turnId": "t", "seq": 1, "data": "x", "tokens": "4"} | "tokens" must be a whole number; got "4"
      TextEvent            | {"turnId": "t", "seq": 1, "data": "x", "tokens": 0.5} | "tokens" must be a whole number; got 0.5
      ToolCallEvent        | {"turnId": "t", "seq": 1, "call": {"callId": "c"}} | "call.name" is required
      ToolCallEvent        | {"turnId": "t", "seq": 1, "call": {"callId": "c", "name": 3}} | "call.name" must be a string; got 3
      ToolCallEvent        | {"turnId": "t", "seq": 1, "call": {"callId": "c", "name": "n", "steps": [{"exitCode": 0}]}} | "call.steps[0].name" is required
      ToolCallEvent        | {"turnId": "t", "seq": 1, "call": {"callId": "c", "name": "n", "steps": [{"name": "a", "exitCode": "0"}]}} | "call.steps[0].exitCode" must be a whole number; got "0"
      ToolCallEvent        | {"turnId": "t", "seq": 1, "call": {"callId": "c", "name": "n", "steps": [{"name": "", "exitCode": 0}]}} | "call.steps[0]" is not valid: a tool step's name must be 1 to 64 characters; got 0
      WorkOrderComplete    | {"turnId": "t", "seq": 1, "status": 2} | "status" must be one of "processing", "finished", "error", "interrupted", "cancelled"; got 2
      WorkOrderComplete    | {"turnId": "t", "seq": 1, "status": "finished", "stats": {"llmCalls": "2"}} | "stats.llmCalls" must be a whole number; got "2"
      ProcessWorkOrder     | {"workOrder": 5}                | "workOrder" must be an object; got 5
      ProcessWorkOrder     | {"firstSeq": 0}                 | "workOrder" is required
      ProcessWorkOrder     | {"workOrder": {"_id": "w"}}     | "workOrder.project" is required
      ProcessWorkOrder     | {"workOrder": {"project": {"_id": "p"}}} | "workOrder.project.name" is required
      ProcessWorkOrder     | {"workOrder": {"_id": "w", "project": {"name": "n", "slug": "s", "gitUrl": "u"}}} | "workOrder.project._id" is required
      ProcessWorkOrder     | {"workOrder": {"chatSession": {"_id": "s", "name": "n", "context": [null]}}} | "workOrder.chatSession.context[0]" must be an object; got null
      ProcessWorkOrder     | {"workOrder": {"chatSession": {"_id": "s", "name": "n", "context": [{"role": 0}]}}} | "workOrder.chatSession.context[0].role" must be one of "system", "user", "assistant", "tool"; got 0
      ProcessWorkOrder     | {"workOrder": {"provider": {"params": {"temperature": "hot"}}}} | "workOrder.provider.params.temperature" must be a number; got "hot"
      CrashRecoveryResponse | {"turnId": "t", "action": "maybe"} | "action" must be one of "discard", "retry"; got "maybe"
      CrashRecoveryResponse | {"turnId": "t", "action": "retry", "retry": {"firstSeq": 1}} | "retry.workOrder" is required
      DroneStatusEvent     | {"status": "asleep"}            | "status" must be one of "starting", "available", "busy", "offline"; got "asleep"
      TurnStarted          | {"turn": {"createdAt": 5}}      | "turn.createdAt" must be a time such as "2026-04-29T19:30:00Z"; got 5
      """)
  void aBadFieldIsNamedWithWhatWasExpected(String type, String json, String message)
      throws Exception {
    Class<?> payload = Class.forName(Payloads.class.getName() + "$" + type);
    assertThat(refusal(json, payload)).isEqualTo(message);
  }

  @Test
  void aTextEventIsReadAsJacksonReadsIt() throws Exception {
    for (String json : List.of("{\"turnId\": \"t\", \"seq\": 3, \"data\": \" \"}",
        "{\"turnId\": \"t\", \"seq\": 9007199254740993, \"data\": \"x\", \"tokens\": 4}",
        "{\"turnId\": \"t\", \"seq\": 0, \"data\": \"\", \"tokens\": null, \"extra\": [1]}")) {
      JsonNode tree = GadgetJson.mapper().readTree(json);
      assertThat(Protocol.payload(List.of(tree), Payloads.TextEvent.class)).as(json)
          .isEqualTo(GadgetJson.mapper().treeToValue(tree, Payloads.TextEvent.class));
    }
    assertThat(refusal("{\"turnId\": \"t\", \"data\": \"x\"}", Payloads.TextEvent.class))
        .contains("seq");
    assertThat(refusal("{\"turnId\": \"" + "t".repeat(101) + "\", \"seq\": 1, \"data\": \"x\"}",
        Payloads.TextEvent.class)).isEqualTo("\"turnId\" must be at most 100 characters; got 101");
  }

  @Test
  void aTextEventsArgumentIsTheTreeJacksonMakesOfIt() {
    for (Payloads.TextEvent e : List.of(new Payloads.TextEvent("t1", 7, "h\"i\n"),
        new Payloads.TextEvent("t2", Long.MAX_VALUE, "", 42L))) {
      JsonNode built = Protocol.args(e).get(0);
      assertThat(built).isEqualTo(GadgetJson.mapper().valueToTree(e));
      assertThat(built.toString()).isEqualTo(GadgetJson.mapper().valueToTree(e).toString());
      assertThat(Protocol.payload(List.of(built), Payloads.TextEvent.class)).isEqualTo(e);
    }
  }

  @Test
  void aPayloadThatIsNotAnObjectIsRefusedAsAWhole() {
    Throwable none = catchThrowable(() -> Protocol.payload(List.of(), Payloads.WatchSession.class));
    assertThat(none).hasMessage("the payload must be a JSON object; got nothing");
    assertThat(((PayloadException) none).field()).isNull();
    assertThat(refusal("\"x\"", Payloads.WatchSession.class))
        .isEqualTo("the payload must be a JSON object; got \"x\"");
    assertThat(refusal("[1]", Payloads.WatchSession.class))
        .isEqualTo("the payload must be a JSON object; got a list");
    assertThat(refusal("null", Payloads.WatchSession.class))
        .isEqualTo("the payload must be a JSON object; got null");
  }

  @Test
  void limitsAreCountedAndLongValuesAreShownCut() {
    String slug = "a".repeat(100_000);
    assertThat(refusal("{\"name\": \"n\", \"slug\": \"" + slug + "\", \"gitUrl\": \"u\"}",
        Payloads.CreateProject.class))
        .isEqualTo("\"slug\" must be at most 100 characters; got 100,000");
    assertThat(refusal("{\"sessionId\": \"s\", \"prompt\": \"" + "p".repeat(Limits.PROMPT + 1)
        + "\"}", Payloads.SubmitPrompt.class))
        .isEqualTo("\"prompt\" must be at most 100,000 characters; got 100,001");
    assertThat(refusal("{\"droneId\": \"d\", \"mode\": \"" + "x".repeat(50) + "\"}",
        Payloads.WorkspaceModeRequest.class))
        .isEqualTo("\"mode\" must be one of \"idle\", \"user\", \"agent\"; got \""
            + "x".repeat(40) + "…\" (50 characters)");
    // at the limit is fine, and so is a prompt of the largest size
    Payloads.CreateProject ok = Protocol.payload(Protocol.args(new Payloads.CreateProject(
        "n".repeat(Limits.NAME), "s".repeat(Limits.SLUG), "u".repeat(Limits.GIT_URL))),
        Payloads.CreateProject.class);
    assertThat(ok.slug()).hasSize(Limits.SLUG);
    assertThat(Protocol.payload(Protocol.args(new Payloads.SubmitPrompt("s",
        "\u0001".repeat(Limits.PROMPT), null)), Payloads.SubmitPrompt.class).prompt())
        .hasSize(Limits.PROMPT);
  }

  @Test
  void theLargestPromptFitsTheTransportsFrameWhateverItHolds() throws Exception {
    // The worst case: every character escaped as JSON's six-byte \\u form, in a full packet.
    String prompt = "\u0001".repeat(Limits.PROMPT);
    byte[] packet = ("421" + GadgetJson.mapper().writeValueAsString(List.of("submitPrompt",
        new Payloads.SubmitPrompt("s".repeat(Limits.ID), prompt, "m".repeat(Limits.ID)))))
        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(packet.length).isLessThan(1_000_000);
  }

  @Test
  void unknownFieldsAreIgnored() throws Exception {
    Payloads.WatchSession w = Protocol.payload(List.of(GadgetJson.mapper().readTree(
        "{\"sessionId\": \"s\", \"newerField\": {\"x\": [1, 2]}}")), Payloads.WatchSession.class);
    assertThat(w.sessionId()).isEqualTo("s");
  }

  @Test
  void everyPayloadGadgetSendsReadsBackUnchanged() {
    ToolCall call = new ToolCall("c1", "read_file", "{\"path\":\"a\"}", "hello");
    ToolCall composite = new ToolCall("c2", "both", "{}", "ok", false, 9L).withSteps(List.of(
        new dev.gadget.core.model.ToolStep("upper", 0, 4L),
        new dev.gadget.core.model.ToolStep("count", null, null)));
    ChatTurn turn = new ChatTurn("t1", "s1", "u1", 3, TurnStatus.FINISHED, "fix it", "build",
        List.of(new TurnBlock.Thinking(0, T0, "hmm"), new TurnBlock.Responding(1, T0, "Sure"),
            new TurnBlock.Tool(2, T0, call)),
        List.of(call), new TurnStats(10, 20, 5, 1, 2, 1500), T0, T0.plusSeconds(2), null, "d1");
    WorkOrder order = new WorkOrder("w1", new WorkOrder.ProjectRef("p1", "P", "p", "/git/p"),
        new ProviderConfig("openai", "http://127.0.0.1:1", "sk-1", "m",
            new ModelParams(0.2, 0.9, 40)),
        new WorkOrder.SessionRef("s1", "S", List.of(new ChatMessage(T0, Role.USER, "hi"))),
        new WorkOrder.TurnRef("t1", "build", "go"));
    List<Object> sent = List.of(
        new Payloads.ErrorReply("no"),
        new Payloads.CreateProject("P", "p", "/git/p"),
        new Payloads.ListSessions("p1"),
        new Payloads.CreateSession("p1", "S"),
        new Payloads.WatchSession("s1"),
        new Payloads.SessionSnapshot("s1", List.of(turn),
            List.of(new Payloads.LiveTurn("t1", 4, new TurnBlock.Responding(3, T0, "He")))),
        new Payloads.SubmitPrompt("s1", "go", "build"),
        new Payloads.SubmitReply("t1", null),
        new Payloads.CancelTurn("t1"),
        Payloads.OkReply.failure("no"),
        new Payloads.SessionLock("s1", "d1", "S", WorkOrder.ProjectRef.of(
            new dev.gadget.core.model.Project("p1", "u1", "P", "p", "/git/p", T0))),
        new Payloads.WorkspaceModeRequest("d1", WorkspaceMode.USER),
        new Payloads.ProcessWorkOrder(order, 7, true),
        new Payloads.WorkOrderAck(false, "busy"),
        new Payloads.CancelWorkOrder("t1"),
        new Payloads.TextEvent("t1", 5, "tok"),
        new Payloads.TextEvent("t1", 6, " "),
        new Payloads.ToolCallEvent("t1", 6, call),
        new Payloads.ToolCallEvent("t1", 7, composite),
        new Payloads.WorkOrderComplete("t1", 8, TurnStatus.FINISHED, turn.stats(), null),
        new Payloads.Heartbeat("t1", 8),
        new Payloads.CrashRecoveryRequest("ws", "t1", "s1", "w1", 4),
        new Payloads.CrashRecoveryResponse("t1", Payloads.CrashRecoveryResponse.RETRY,
            new Payloads.ProcessWorkOrder(order, 9, false)),
        new Payloads.DroneStatusEvent("d1", DroneStatus.BUSY, "t1"),
        new Payloads.TurnStarted(turn));
    for (Object p : sent) {
      List<JsonNode> args = Protocol.args(p);
      assertThat(Protocol.payload(args, p.getClass())).as(p.getClass().getSimpleName())
          .isEqualTo(p);
    }
  }
}
