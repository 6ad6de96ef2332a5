package dev.gadget.core.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.WorkOrder;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.InMemoryTransport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A drone running a turn refuses user mode (seeds 000/001: the IDE must wait for the agent). */
class DroneModeRefusalTest extends RuntimeTestBase {
  @Test
  void aDroneRefusesUserModeWhileItRunsATurnAndTakesItOnceIdle() throws Exception {
    fx = new RuntimeFixture(tmp);
    InMemoryTransport transport = new InMemoryTransport();
    BlockingQueue<Connection> drones = fx.bareServer(transport, c -> { });
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("slow ".repeat(300)).build())
        .tokenDelay(Duration.ofMillis(10)).build();
    GadgetDrone drone = GadgetDrone.builder().transport(transport.client()).token("t")
        .workspaceDir(tmp.resolve("ws")).llmClients(p -> llm).build();
    drone.start();
    fx.closeables.add(drone);
    Connection c = drones.poll(10, TimeUnit.SECONDS);
    WorkOrder order = new WorkOrder("w1",
        new WorkOrder.ProjectRef("p1", "Sample", "sample", fx.gitUrl), RuntimeFixture.PROVIDER,
        new WorkOrder.SessionRef("s1", "S", List.of()),
        new WorkOrder.TurnRef("t1", "build", "go"));
    assertThat(ask(c, Protocol.PROCESS_WORK_ORDER, new Payloads.ProcessWorkOrder(order, 0,
        false)).get("accepted").asBoolean()).isTrue();

    JsonNode refused = ask(c, Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", "d", "mode", "user"));
    assertThat(refused.get("ok").asBoolean()).isFalse();
    assertThat(refused.get("error").asText()).isEqualTo("the agent is running turn t1");

    ask(c, Protocol.CANCEL_WORK_ORDER, new Payloads.CancelWorkOrder("t1"));
    RuntimeFixture.await("the turn over", () -> drone.activeTurnId().isEmpty());
    assertThat(ask(c, Protocol.REQUEST_WORKSPACE_MODE, Map.of("droneId", "d", "mode", "user"))
        .get("ok").asBoolean()).isTrue();
  }

  private static JsonNode ask(Connection c, String event, Object payload) throws Exception {
    return c.emitWithAck(event, Protocol.args(payload), Duration.ofSeconds(10))
        .get(10, TimeUnit.SECONDS).get(0);
  }
}
