package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code listDrones} says what is true now: a drone is available only while it is connected. */
class DroneListTest extends RuntimeTestBase {

  @Test
  void aDroneTheStoreLastSawAvailableIsOfflineUntilItsConnectionIsBack() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    // what a server killed with kill -9 leaves: the drone stored as available
    Instant then = Instant.parse("2026-11-27T10:00:00Z");
    fx.store.saveDrone(new DroneRegistration("drone-1", ada.user().id(), "ws-1", "box",
        "/ws", DroneStatus.AVAILABLE, then, then));
    Page page = fx.page(ada.pageToken()).connected();
    JsonNode listed = page.request(Protocol.LIST_DRONES, Map.of());
    assertThat(listed.toString()).contains("\"status\":\"offline\"")
        .doesNotContain("available");

    fx.drone(ada, tmp.resolve("ws"), dev.gadget.core.llm.ScriptedLlmClient.of());
    // (the stored drone-1 says available too: wait for the new one, then for the page to see it)
    await("the new drone stored", () -> fx.store.listDrones(ada.user().id()).size() == 2);
    await("the new drone listed available", () -> listed(page).contains(
        "\"status\":\"available\""));
    JsonNode both = page.request(Protocol.LIST_DRONES, Map.of());
    assertThat(both.toString()).contains("\"status\":\"offline\"", "\"status\":\"available\"");
  }

  private static String listed(Page page) {
    try {
      return page.request(Protocol.LIST_DRONES, Map.of()).toString();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
