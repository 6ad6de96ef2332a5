package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Seed 001 §2.3 (deferred in 000): the drone goes to {@code agent} before it runs a turn and back
 * to {@code idle} after, and says so; the server and the user's pages see each change, in order
 * with the turn's own events.
 */
class WorkspaceModeTest extends RuntimeTestBase {

  @Test
  void pagesSeeTheWorkspaceModeChangeAsItHappens() throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.server(b -> b);
    Person ada = fx.person("ada");
    Person bob = fx.person("bob");
    Page page = fx.page(ada.pageToken()).connected();
    Page other = fx.page(bob.pageToken()).connected();
    // the model answers only once the test has seen the drone in agent mode
    CountDownLatch answer = new CountDownLatch(1);
    GadgetDrone drone = fx.drone(ada, tmp.resolve("ws"), ScriptedLlmClient.builder()
        .script(request -> {
          try {
            answer.await(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return ScriptedLlmClient.reply().thinking("Now I know.").text("done").build();
        }).build());
    String session = fx.watchedSession(page);
    await("drone registered", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();
    await("mode on connect", () -> seen(page, droneId).equals(List.of("mode idle")));
    assertThat(listedMode(page)).isEqualTo("idle");

    String turn = page.submit(session, "go");
    await("agent, while the turn runs", () -> listedMode(page).equals("agent"));
    assertThat(seen(page, droneId)).as("agent once the turn started, before any token")
        .containsExactly("mode idle", "turnStarted", "mode agent");
    answer.countDown();
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    await("idle after the turn's end", () -> seen(page, droneId).size() == 6);
    assertThat(seen(page, droneId)).containsExactly("mode idle", "turnStarted", "mode agent",
        "tokens", "workOrderComplete", "mode idle");
    assertThat(listedMode(page)).isEqualTo("idle");

    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "user")).get("ok").asBoolean()).isTrue();
    await("user", () -> seen(page, droneId).size() == 7);
    assertThat(seen(page, droneId)).last().isEqualTo("mode user");
    assertThat(listedMode(page)).isEqualTo("user");
    // another user's page hears nothing of ada's drone
    assertThat(other.events).noneMatch(e -> e.name().equals(Protocol.WORKSPACE_MODE));
    assertThat(drone.activeTurnId()).isEmpty();
  }

  /** The drone's mode as {@code listDrones} answers it. */
  private static String listedMode(Page page) {
    try {
      return page.request(Protocol.LIST_DRONES, Map.of()).get("drones").get(0).get("mode")
          .asText();
    } catch (Exception e) {
      throw new AssertionError("listDrones failed", e);
    }
  }

  /**
   * What {@code page} heard, in order: each workspace mode of {@code droneId}, the turn's start
   * and end, and its tokens (a run of them as one "tokens").
   */
  private static List<String> seen(Page page, String droneId) {
    List<String> out = new ArrayList<>();
    for (Page.Event e : page.events) {
      String name = e.name();
      if (name.equals(Protocol.WORKSPACE_MODE)
          && e.payload().get("droneId").asText().equals(droneId)) {
        out.add("mode " + e.payload().get("mode").asText());
      } else if (name.equals(Protocol.TURN_STARTED) || name.equals(Protocol.WORK_ORDER_COMPLETE)) {
        out.add(name);
      } else if ((name.equals(Protocol.THINKING) || name.equals(Protocol.RESPONSE))
          && !(!out.isEmpty() && out.get(out.size() - 1).equals("tokens"))) {
        out.add("tokens");
      }
    }
    return out;
  }
}
