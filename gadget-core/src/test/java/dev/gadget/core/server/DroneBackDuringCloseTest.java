package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ForwardingCluster;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A drone's socket closes and the drone connects again while the close is still handled (the
 * node's look-up of the drone in the cluster is slow): the close must leave the drone as its new
 * socket made it, leased to this node, busy with its turn, never told offline, and the turn
 * runs on to its end. Handled as if the drone were gone, the close gave up the new socket's
 * lease, stored and told the drone offline, and started the turn's grace period.
 */
class DroneBackDuringCloseTest extends RuntimeTestBase {
  private final InProcessCluster hub = new InProcessCluster();
  private final BlockingQueue<String> orders = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> resumes = new LinkedBlockingQueue<>();
  private final CountDownLatch closeHandled = new CountDownLatch(1);
  private final CountDownLatch lookupHeld = new CountDownLatch(1);
  private final CountDownLatch letLookupGo = new CountDownLatch(1);
  /** The drone whose next look-up, off the timer thread (its close's), waits for the test. */
  private volatile String holdLookupOf;
  private Person ada;

  @Test
  void aDroneBackBeforeItsCloseIsHandledKeepsItsLeaseItsTurnAndItsStatus() throws Exception {
    Nodes nodes = startNodes(hub, (id, b) -> b.droneGracePeriod(Duration.ofMinutes(10))
        .listener(new ServerListener() {
          @Override
          public void onConnectionClosed(ConnectionKind kind) {
            if (kind == ConnectionKind.DRONE) {
              closeHandled.countDown();
            }
          }
        }), (id, c) -> new HeldLookups(c), "a");
    ada = fx.person("ada");
    TransportClient firstSocket = nodes.transports().get(0).client();
    fx.closeables.add(firstSocket);
    Connection first = drone(firstSocket, null);
    Page page = new Page(nodes.transports().get(0).client(), ada.pageToken());
    fx.closeables.add(page);
    String session = fx.watchedSession(page.connected());
    await("the drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();
    Cluster probe = hub.join("probe");
    await("the drone leased", () -> probe.locate(droneId).isPresent());
    String turn = page.submit(session, "hello");
    assertThat(orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    // a first token, which the node handles after the drone's acceptance of the work order
    first.emit(Protocol.RESPONSE, List.of(token(turn)));
    await("the first token on the page", () -> page.seqs(turn, Protocol.RESPONSE).size() == 1);

    holdLookupOf = droneId;
    firstSocket.close(); // its close waits in the node's look-up of the drone
    assertThat(lookupHeld.await(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
    TransportClient secondSocket = nodes.transports().get(0).client();
    fx.closeables.add(secondSocket);
    Connection back = drone(secondSocket, turn);
    assertThat(resumes.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("the node took the drone back with its turn").isEqualTo(turn);
    letLookupGo.countDown();
    assertThat(closeHandled.await(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isTrue();

    assertThat(probe.locate(droneId).map(Cluster.Lease::nodeId)).as("its lease").contains("a");
    assertThat(fx.store.listDrones(ada.user().id()).get(0).status())
        .isNotEqualTo(DroneStatus.OFFLINE);
    back.emit(Protocol.STREAM_REPLAY, Protocol.args(
        new ResumePayloads.StreamReplay(turn, 0, true)));
    back.emit(Protocol.RESPONSE, List.of(token(turn)));
    back.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 1, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")));
    assertThat(page.completion(turn).path("status").asText()).isEqualTo("finished");
    assertThat(page.events).filteredOn(e -> e.name().equals(Protocol.DRONE_STATUS))
        .extracting(e -> e.payload().path("status").asText())
        .as("statuses told to the page").doesNotContain("offline", "OFFLINE");
  }

  private static ObjectNode token(String turn) {
    return GadgetJson.mapper().createObjectNode().put("turnId", turn).put("seq", 0)
        .put("data", "hello ");
  }

  private Connection drone(TransportClient client, String activeTurn) {
    return RuntimeFixture.rawDrone(client, ada, activeTurn, orders, resumes);
  }

  /** The node's view of the cluster, whose one armed look-up waits until the test lets it go. */
  private final class HeldLookups extends ForwardingCluster {
    HeldLookups(Cluster real) {
      super(real);
    }

    @Override
    public Optional<Lease> locate(String drone) {
      if (drone.equals(holdLookupOf)
          && !Thread.currentThread().getName().equals("gadget-server-timer")) {
        holdLookupOf = null;
        lookupHeld.countDown();
        try {
          letLookupGo.await(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return super.locate(drone);
    }
  }
}
