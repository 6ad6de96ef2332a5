package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A token's event reaches the pages as the drone sent it when it holds just the event's fields
 * (the transport may then write it again as it came), and rebuilt from its fields otherwise: a
 * drone cannot pass anything else on to the pages.
 */
class StreamRelayTest extends RuntimeTestBase {

  private final BlockingQueue<String> turns = new LinkedBlockingQueue<>();
  private Connection drone;
  private Page page;
  private String session;

  /** A server, ada's page watching a chat, and a raw drone that takes every work order. */
  private void start() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    TransportClient raw = fx.transport.client();
    fx.closeables.add(raw);
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", ada.droneToken())
        .put("workspaceId", "raw-ws").put("hostname", "h").put("workspaceDir", "/nowhere");
    drone = raw.connect(Protocol.DRONE_NAMESPACE, () -> auth,
        new TransportClient.ClientListener() {});
    drone.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
      turns.add(args.get(0).get("workOrder").get("chatTurn").get("_id").asText());
      ack.send(Protocol.args(new Payloads.WorkOrderAck(true, null)));
    });
    page = fx.page(ada.pageToken()).connected();
    session = fx.watchedSession(page);
    await("drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
  }

  /** Submits a prompt; the drone has its work order. */
  private String submit(String prompt) throws Exception {
    String turn = page.submit(session, prompt);
    assertThat(turns.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    return turn;
  }

  private void finish(String turn, long seq) throws Exception {
    drone.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, seq, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")));
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
  }

  private List<String> tokensOf(String turn) {
    // compared as text: a number read back may be an int where it was sent as a long
    return page.eventsOf(turn).stream()
        .filter(e -> e.name().equals(Protocol.RESPONSE) || e.name().equals(Protocol.THINKING))
        .map(e -> e.payload().toString()).toList();
  }

  @Test
  void thePagesGetATokensFieldsAndNothingElse() throws Exception {
    start();
    String turn = submit("hello?");

    ObjectNode plain = token(turn, 1, "Hel");
    ObjectNode counted = token(turn, 2, "lo").put("tokens", 7);
    ObjectNode extra = token(turn, 3, " the").put("html", "<script>x()</script>");
    ObjectNode nullTokens = token(turn, 4, "re").putNull("tokens");
    ObjectNode extraThinking = token(turn, 5, "hm").put("tokens", 2).put("note", "n");
    drone.emit(Protocol.RESPONSE, List.of(plain));
    drone.emit(Protocol.RESPONSE, List.of(counted));
    drone.emit(Protocol.RESPONSE, List.of(extra));
    drone.emit(Protocol.RESPONSE, List.of(nullTokens));
    drone.emit(Protocol.THINKING, List.of(extraThinking));
    finish(turn, 6);

    assertThat(tokensOf(turn)).containsExactly(
        plain.toString(),
        counted.toString(),
        token(turn, 3, " the").toString(),
        token(turn, 4, "re").toString(),
        token(turn, 5, "hm").put("tokens", 2).toString());
  }

  @Test
  void aDronesNextTurnGetsItsTokensAndAnEndedTurnGetsNone() throws Exception {
    start();
    String first = submit("one");
    drone.emit(Protocol.RESPONSE, List.of(token(first, 1, "A")));
    finish(first, 2);
    drone.emit(Protocol.RESPONSE, List.of(token(first, 3, "late")));

    String second = submit("two");
    drone.emit(Protocol.RESPONSE, List.of(token(second, 1, "B")));
    drone.emit(Protocol.RESPONSE, List.of(token(first, 4, "later")));
    drone.emit(Protocol.RESPONSE, List.of(token(second, 2, "C")));
    finish(second, 3);

    assertThat(tokensOf(second)).containsExactly(token(second, 1, "B").toString(),
        token(second, 2, "C").toString());
    assertThat(tokensOf(first)).containsExactly(token(first, 1, "A").toString());
  }

  private static ObjectNode token(String turn, long seq, String data) {
    return GadgetJson.mapper().createObjectNode().put("turnId", turn).put("seq", seq)
        .put("data", data);
  }
}
