package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.InMemoryTransport;
import dev.gadget.core.transport.TransportClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A drone registered for the first time while its user's page is on another node: the page
 * hears of it at once (through the user's roster of drones), not from its next connection.
 */
class ClusterDroneRosterTest extends RuntimeTestBase {
  private final InProcessCluster hub = new InProcessCluster();

  @Test
  void aDroneRegisteredAfterThePageConnectedReachesThePageOnAnotherNode() throws Exception {
    List<InMemoryTransport> transports = startNodes(hub, b -> b, "a", "b").transports();
    RuntimeFixture.Person ada = fx.person("ada");
    Page onB = new Page(transports.get(1).client(), ada.pageToken());
    fx.closeables.add(onB);
    onB.connected().request(Protocol.LIST_DRONES, Map.of()); // node B has taken the page in
    assertThat(fx.store.listDrones(ada.user().id())).isEmpty();

    for (String workspace : List.of("ws-1", "ws-2")) { // two, each new when the page was there
      TransportClient raw = transports.get(0).client();
      fx.closeables.add(raw);
      ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", ada.droneToken())
          .put("workspaceId", workspace).put("hostname", "h").put("workspaceDir", "/nowhere");
      Connection drone = raw.connect(Protocol.DRONE_NAMESPACE, () -> auth,
          new TransportClient.ClientListener() {});
      await("the drone of " + workspace, () -> fx.store.listDrones(ada.user().id()).stream()
          .anyMatch(d -> d.workspaceId().equals(workspace)));
      String droneId = fx.store.listDrones(ada.user().id()).stream()
          .filter(d -> d.workspaceId().equals(workspace)).findFirst().orElseThrow().id();
      drone.emit(Protocol.DRONE_STATUS, Protocol.args(new dev.gadget.core.protocol.Payloads
          .DroneStatusEvent(null, dev.gadget.core.model.DroneStatus.BUSY, null)));
      await("the news of " + workspace + " on node B", () -> statuses(onB, droneId)
          .contains("busy"));
      drone.disconnect();
      await("the drone of " + workspace + " going, on node B", () -> statuses(onB, droneId)
          .contains("offline"));
      assertThat(statuses(onB, droneId)).containsSubsequence("busy", "offline")
          .doesNotHaveDuplicates();
    }
  }

  private static List<String> statuses(Page page, String droneId) {
    return page.events.stream().filter(e -> e.name().equals(Protocol.DRONE_STATUS)
        && e.payload().path("droneId").asText().equals(droneId))
        .map(e -> e.payload().path("status").asText()).toList();
  }
}
