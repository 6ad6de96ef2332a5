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
import dev.gadget.core.store.JournaledChatStore;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A chat's {@code createTools} is stored with the session (ChatSession#createTools), not kept in
 * one server's memory: a server restarted on the same journaled store, with the store reopened,
 * still puts it into the chat's work orders and tells pages. (Across nodes:
 * ClusterRuntimeTest.)
 */
class CreateToolsStoredTest extends RuntimeTestBase {
  private final BlockingQueue<String> orderSettings = new LinkedBlockingQueue<>();

  /** A raw drone of {@code owner}: it takes each work order and notes its createTools. */
  private void drone(Person owner) {
    TransportClient raw = fx.transport.client();
    fx.closeables.add(raw);
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", owner.droneToken())
        .put("workspaceId", "ws-1").put("hostname", "h").put("workspaceDir", "/nowhere");
    Connection c = raw.connect(Protocol.DRONE_NAMESPACE, () -> auth,
        new TransportClient.ClientListener() {});
    c.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
      orderSettings.add(args.get(0).get("workOrder").path("createTools").asText("unset"));
      ack.send(Protocol.args(new Payloads.WorkOrderAck(true, null)));
    });
  }

  @Test
  void aChatsCreateToolsOutlivesAServerRestartWithItsStoreReopened() throws Exception {
    Path data = tmp.resolve("data");
    JournaledChatStore first = JournaledChatStore.open(data);
    fx = new RuntimeFixture(tmp, first);
    GadgetServer server = fx.server(b -> b);
    Person ada = fx.person("ada");
    Page page = fx.page(ada.pageToken()).connected();
    String session = fx.watchedSession(page);
    JsonNode set = page.request(Protocol.APPROVAL_POLICY,
        Map.of("sessionId", session, "createTools", false));
    assertThat(set.path("createTools").asText()).as("%s", set).isEqualTo("false");
    server.close();
    page.close();
    first.close();

    JournaledChatStore reopened = JournaledChatStore.open(data);
    fx.closeables.add(reopened);
    GadgetServer again = GadgetServer.builder().store(reopened)
        .transport(fx.transport.server()).provider(RuntimeFixture.PROVIDER).build();
    again.start();
    fx.closeables.add(again);
    Page back = fx.page(ada.pageToken()).connected();
    JsonNode snapshot = back.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
    assertThat(snapshot.path("approvals").path("createTools").asText()).as("%s", snapshot)
        .isEqualTo("false");
    drone(ada);
    await("the drone", () -> !reopened.listDrones(ada.user().id()).isEmpty());
    back.submit(session, "hello");
    assertThat(orderSettings.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("the work order's createTools after the restart").isEqualTo("false");
  }
}
