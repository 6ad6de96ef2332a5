package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Who gets a work order, and what happens when it is not taken (seeds 000/001): a drone that
 * refuses it or never acknowledges it ends the turn in error; the chat's workspace drone is
 * chosen first, another free drone when it is busy; a page picks a drone by locking the session.
 */
class WorkOrderAcceptanceTest extends RuntimeTestBase {
  private Person ada;
  private Page page;
  private String session;

  private void start() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b.ackTimeout(Duration.ofMillis(500)));
    ada = fx.person("ada");
    page = fx.page(ada.pageToken()).connected();
    session = fx.watchedSession(page);
  }

  /** A raw drone of ada's on workspace {@code ws}; what it is sent goes to {@code orders}. */
  private Connection drone(String ws, BlockingQueue<String> orders, Payloads.WorkOrderAck answer)
      throws Exception {
    int before = fx.store.listDrones(ada.user().id()).size();
    TransportClient raw = fx.transport.client();
    fx.closeables.add(raw);
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", ada.droneToken())
        .put("workspaceId", ws).put("hostname", ws).put("workspaceDir", "/" + ws);
    Connection c = raw.connect(Protocol.DRONE_NAMESPACE, () -> auth,
        new TransportClient.ClientListener() {});
    c.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
      orders.add(args.get(0).get("workOrder").get("chatTurn").get("_id").asText());
      if (answer != null) {
        ack.send(Protocol.args(answer));
      }
    });
    c.on(Protocol.REQUEST_SESSION_LOCK, (args, ack) ->
        ack.send(Protocol.args(Map.of("ok", true))));
    await("drone " + ws, () -> fx.store.listDrones(ada.user().id()).size() > before);
    return c;
  }

  @Test
  void aDroneThatRefusesOrNeverAcknowledgesEndsTheTurnInError() throws Exception {
    start();
    BlockingQueue<String> orders = new LinkedBlockingQueue<>();
    Connection refusing = drone("ws-refusing", orders,
        new Payloads.WorkOrderAck(false, "the workspace is in user mode"));
    String turn = page.submit(session, "hello");
    JsonNode end = page.completion(turn);
    assertThat(end.get("status").asText()).isEqualTo("error");
    assertThat(end.get("error").asText())
        .isEqualTo("the drone refused the work order: the workspace is in user mode");
    refusing.disconnect();
    await("the refusing drone gone", () -> fx.store.listDrones(ada.user().id()).stream()
        .anyMatch(d -> d.status() == dev.gadget.core.model.DroneStatus.OFFLINE));

    drone("ws-silent", orders, null);
    String silent = page.submit(session, "hello again");
    JsonNode end2 = page.completion(silent);
    assertThat(end2.get("status").asText()).isEqualTo("error");
    assertThat(end2.get("error").asText()).startsWith("the drone did not accept the work order");
  }

  @Test
  void theChatsWorkspaceDroneIsChosenFirstAndAnotherWhenItIsBusy() throws Exception {
    start();
    BlockingQueue<String> toA = new LinkedBlockingQueue<>();
    BlockingQueue<String> toB = new LinkedBlockingQueue<>();
    drone("ws-a", toA, new Payloads.WorkOrderAck(true, null));
    Connection b = drone("ws-b", toB, new Payloads.WorkOrderAck(true, null));
    String bId = fx.store.listDrones(ada.user().id()).stream()
        .filter(d -> d.workspaceId().equals("ws-b")).findFirst().orElseThrow().id();
    // a page picks b by locking the chat to it: b's workspace becomes the chat's
    String other = page.request(Protocol.CREATE_SESSION, Map.of("projectId",
        fx.store.findSession(session).orElseThrow().projectId(), "name", "Other"))
        .get("session").get("_id").asText();
    for (String s : List.of(session, other)) {
      assertThat(page.request(Protocol.REQUEST_SESSION_LOCK, Map.of("sessionId", s,
          "droneId", bId)).toString()).doesNotContain("error");
      assertThat(fx.store.findSession(s).orElseThrow().workspaceId()).isEqualTo("ws-b");
    }
    // both drones free: the chat's own (b, registered second) gets it
    String t1 = page.submit(session, "one");
    assertThat(toB.poll(10, TimeUnit.SECONDS)).isEqualTo(t1);
    b.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(t1, 1,
        dev.gadget.core.model.TurnStatus.FINISHED, null, null, "done")));
    page.completion(t1);
    String t2 = page.submit(session, "two");
    assertThat(toB.poll(10, TimeUnit.SECONDS)).as("again the chat's drone").isEqualTo(t2);
    // the other chat's drone is b too, and busy: it falls back to a
    String t3 = page.submit(other, "three");
    assertThat(toA.poll(10, TimeUnit.SECONDS)).isEqualTo(t3);
    assertThat(List.of(toA.size(), toB.size())).containsExactly(0, 0);
  }
}
