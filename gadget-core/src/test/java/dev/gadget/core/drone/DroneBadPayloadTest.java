package dev.gadget.core.drone;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.protocol.JavaWords;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real drone on the in-memory transport, given bad payloads by a server that is only a
 * connection acceptor ({@link AcceptorServer}): every event with an ack is answered, the answer
 * names the field without Jackson's or Java's words, and the drone goes on working.
 */
class DroneBadPayloadTest {
  static final Pattern INTERNALS = JavaWords.PATTERN;

  @TempDir Path tmp;
  final AcceptorServer server = new AcceptorServer();

  @AfterEach
  void stop() {
    server.close();
  }

  private Connection connectedDrone() throws Exception {
    return server.connectedDrone(tmp.resolve("ws"));
  }

  private static JsonNode ask(Connection c, String event, String json) throws Exception {
    return AcceptorServer.ask(c, event, json);
  }

  private static void assertNames(JsonNode answer, String text, String field) {
    assertThat(text).as("%s", answer).contains("\"" + field + "\"");
    assertThat(text).doesNotContainPattern(INTERNALS);
  }

  @Test
  void everyBadServerPayloadIsAnsweredWithItsField() throws Exception {
    Connection c = connectedDrone();
    String[][] okReplies = {
        {Protocol.CANCEL_WORK_ORDER, "{}", "turnId"},
        {Protocol.CANCEL_WORK_ORDER, "{\"turnId\": 5}", "turnId"},
        {Protocol.REQUEST_SESSION_LOCK, "{\"sessionId\": \"s\"}", "project"},
        {Protocol.REQUEST_SESSION_LOCK, "{\"sessionId\": \"s\", \"project\": {\"_id\": \"p\"}}",
            "project.name"},
        {Protocol.REQUEST_WORKSPACE_MODE, "{\"droneId\": \"d\", \"mode\": 1}", "mode"},
        {Protocol.REQUEST_WORKSPACE_MODE, "{\"droneId\": \"d\", \"mode\": true}", "mode"},
        {Protocol.CRASH_RECOVERY_RESPONSE, "{\"turnId\": 5, \"action\": \"retry\"}", "turnId"},
        {Protocol.CRASH_RECOVERY_RESPONSE, "{\"turnId\": \"t\", \"action\": 1}", "action"},
    };
    for (String[] r : okReplies) {
      JsonNode answer = ask(c, r[0], r[1]);
      assertThat(answer.path("ok").asBoolean(true)).as("%s %s: %s", r[0], r[1], answer).isFalse();
      String error = answer.path("error").asText("");
      assertThat(error).startsWith("bad " + r[0] + " payload: ");
      assertNames(answer, error, r[2]);
    }
    String[][] workOrders = {
        {"{}", "workOrder"},
        {"{\"workOrder\": 5}", "workOrder"},
        {"{\"workOrder\": {\"_id\": \"w\"}}", "workOrder.project"},
        {"{\"workOrder\": {\"_id\": \"w\", \"project\": {\"_id\": \"p\", \"name\": \"n\","
            + " \"slug\": \"s\", \"gitUrl\": \"u\"}}, \"firstSeq\": \"0\"}", "firstSeq"},
    };
    for (String[] w : workOrders) {
      JsonNode answer = ask(c, Protocol.PROCESS_WORK_ORDER, w[0]);
      assertThat(answer.path("accepted").asBoolean(true)).as("%s: %s", w[0], answer).isFalse();
      assertNames(answer, answer.path("reason").asText(""), w[1]);
    }
    assertThat(server.drone.activeTurnId()).isEmpty();

    JsonNode user = ask(c, Protocol.REQUEST_WORKSPACE_MODE,
        "{\"droneId\": \"d\", \"mode\": \"user\"}");
    assertThat(user.path("ok").asBoolean()).as("%s", user).isTrue();
    JsonNode busy = ask(c, Protocol.PROCESS_WORK_ORDER, GadgetJson.mapper().writeValueAsString(
        workOrder()));
    assertThat(busy.path("reason").asText()).isEqualTo("the workspace is in user mode");
  }

  static ObjectNode workOrder() throws Exception {
    return (ObjectNode) GadgetJson.mapper().readTree("""
        {"workOrder": {"_id": "w1",
          "project": {"_id": "p1", "name": "P", "slug": "p", "gitUrl": "/nowhere.git"},
          "provider": {"sdk": "scripted", "baseUrl": "scripted:x", "modelId": "m"},
          "chatSession": {"_id": "s1", "name": "S", "context": []},
          "chatTurn": {"_id": "t1", "mode": "build", "prompt": "hi"}},
         "firstSeq": 0, "resume": false}""");
  }
}
