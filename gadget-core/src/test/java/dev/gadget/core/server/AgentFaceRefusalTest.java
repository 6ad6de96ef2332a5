package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.core.transport.TransportException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Seed 004's face on {@code /agent}, over the in-memory transport: who may connect, what a query
 * that cannot run is told, and that its turn is the page's turn.
 */
class AgentFaceRefusalTest extends RuntimeTestBase {

  /** A seed-004 client: every event it receives, in order, as "name payload". */
  private record Client(Connection connection, List<String> log, BlockingQueue<String> refused) {
    void query(Object payload) {
      connection.emit(Protocol.QUERY, Protocol.args(payload));
    }

    boolean has(String line) {
      return log.stream().anyMatch(l -> l.equals(line));
    }
  }

  private Client client(String token) {
    TransportClient raw = fx.transport.client();
    fx.closeables.add(raw);
    List<String> log = new CopyOnWriteArrayList<>();
    BlockingQueue<String> refused = new LinkedBlockingQueue<>();
    ObjectNode auth = GadgetJson.mapper().createObjectNode();
    if (token != null) {
      auth.put("token", token);
    }
    // handlers registered before connecting: the greeting comes the moment the server accepts
    Connection c = raw.connect(Protocol.AGENT_NAMESPACE, () -> auth,
        new TransportClient.ClientListener() {
          @Override
          public void onConnectError(Connection c, TransportException e) {
            refused.add(e.getMessage());
          }
        },
        conn -> {
          for (String e : List.of(Protocol.CONNECTED, Protocol.TOOL_COUNT, Protocol.ERROR,
              Protocol.AGENT_EVENT, Protocol.QUERY_COMPLETE, Protocol.SESSION_MEMORY)) {
            conn.on(e, (args, ack) -> log.add(e + " " + args.get(0)));
          }
        });
    return new Client(c, log, refused);
  }

  @Test
  void onlyAUserTokenConnects() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    String[][] cases = {
        {null, "missing token"},
        {"gdt_nope", "invalid token"},
        {ada.droneToken(), "this is a drone token; it cannot connect here"}};
    for (String[] c : cases) {
      assertThat(client(c[0]).refused().poll(10, TimeUnit.SECONDS)).isEqualTo(c[1]);
    }
    Client ok = client(ada.pageToken());
    await("connected", () -> ok.has("connected {\"data\":\"Connected to agent\"}"));
    await("tool_count", () -> ok.has("tool_count {\"count\":0}"));
  }

  @Test
  void aQueryThatCannotRunIsAnErrorInPeoplesWordsAndTheClientGoesOn() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    Client c = client(ada.pageToken());
    await("connected", () -> c.has("connected {\"data\":\"Connected to agent\"}"));

    c.query(Map.of("prompt", 42));
    await("bad payload", () -> c.has("error {\"message\":\"bad query payload: \\\"prompt\\\" "
        + "must be a string; got 42\"}"));
    c.query(Map.of("session_id", "s1"));
    await("no prompt", () -> c.has("error {\"message\":\"No prompt provided\"}"));
    c.query(Map.of("prompt", "hello", "session_id", "s1"));
    await("no project", () -> c.has("error {\"message\":\"you have no project yet: create one "
        + "in the page, then ask again\"}"));
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    c.query(Map.of("prompt", "hello", "session_id", session));
    await("no drone", () -> c.has("error {\"message\":\"no drone is connected: start a drone "
        + "with one of your tokens\"}"));
    assertThat(c.log()).noneMatch(l -> l.startsWith(Protocol.AGENT_EVENT));

    // with a drone, the same client's query runs as a turn of that session, which the page
    // watching it sees
    fx.drone(ada, tmp.resolve("ws"), ScriptedLlmClient.of(
        ScriptedLlmClient.reply().text("Hello from the drone.").build()));
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    c.query(Map.of("prompt", "hello", "session_id", session));
    await("query_complete", () -> c.log().stream().anyMatch(l ->
        l.startsWith(Protocol.QUERY_COMPLETE + " {\"success\":true,\"response\":\"Hello from "
            + "the drone.\"")));
    String turn = fx.store.listTurns(session).get(0).id();
    JsonNode done = page.completion(turn);
    assertThat(done.get("text").asText()).isEqualTo("Hello from the drone.");
  }
}
