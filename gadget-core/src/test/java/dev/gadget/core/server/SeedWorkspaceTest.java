package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeds 000/001's workspace contract over the runtime (server, drone, page on the in-memory
 * transport, real git): the workspace mode on the wire, the drone's state on request, the
 * {@code .gadget/} files, crash recovery's delay.
 */
class SeedWorkspaceTest {
  @TempDir Path tmp;
  RuntimeFixture fx;

  @AfterEach
  void tearDown() {
    if (fx != null) {
      fx.close();
    }
  }

  private static ScriptedLlmClient.Reply answer(String text) {
    return ScriptedLlmClient.reply().thinking("Now I know.").text(text).build();
  }

  private static String submit(Page page, String sessionId, String prompt) throws Exception {
    JsonNode reply = page.request(Protocol.SUBMIT_PROMPT,
        Map.of("sessionId", sessionId, "prompt", prompt));
    assertThat(reply.has("error")).as("submit error: %s", reply).isFalse();
    return reply.get("turnId").asText();
  }

  private static List<String> modes(Page page, String droneId) {
    return page.events.stream().filter(e -> e.name().equals(Protocol.WORKSPACE_MODE))
        .filter(e -> e.payload().get("droneId").asText().equals(droneId))
        .map(e -> e.payload().get("mode").asText()).toList();
  }

  @Test
  void pagesSeeTheWorkspaceModeChangeAsItHappens() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    Person bob = fx.person("bob");
    Page page = fx.page(ada.pageToken()).connected();
    Page other = fx.page(bob.pageToken()).connected();
    GadgetDrone drone = fx.drone(ada, tmp.resolve("ws"), ScriptedLlmClient.of(answer("done")));
    String session = fx.watchedSession(page);
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();
    await("mode on connect", () -> modes(page, droneId).equals(List.of("idle")));
    assertThat(page.request(Protocol.LIST_DRONES, Map.of()).get("drones").get(0).get("mode")
        .asText()).isEqualTo("idle");

    String turn = submit(page, session, "go");
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    await("agent, then idle", () -> modes(page, droneId).equals(List.of("idle", "agent", "idle")));

    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "user")).get("ok").asBoolean()).isTrue();
    await("user", () -> modes(page, droneId).size() == 4);
    assertThat(modes(page, droneId)).last().isEqualTo("user");
    assertThat(page.request(Protocol.LIST_DRONES, Map.of()).get("drones").get(0).get("mode")
        .asText()).isEqualTo("user");
    // another user's page hears nothing of ada's drone
    assertThat(other.events).noneMatch(e -> e.name().equals(Protocol.WORKSPACE_MODE));
    assertThat(drone.activeTurnId()).isEmpty();
  }
}
