package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A page cancels a running turn (also during the checkout), locks a session to a drone and puts
 * its workspace in user mode, through a drone crash and restart.
 */
class TurnCancelAndLockTest extends ChatRuntimeTestBase {
  @Test
  void aPageCancelsARunningTurn() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.builder()
        .reply(ScriptedLlmClient.reply().text("word ".repeat(1000)).build())
        .reply(answer("after cancel"))
        .tokenDelay(Duration.ofMillis(10)).build();
    Chat chat = chat(ada, tmp.resolve("ws"), llm);
    GadgetDrone drone = chat.drone();
    Page page = chat.page();
    String session = chat.session();
    String turn = submit(page, session, "go on forever");
    await("streaming", () -> page.eventsOf(turn).size() > 5);
    // while the turn runs, its work order is cached, without the API key
    Path cache = tmp.resolve("ws/.gadget/work-order.json");
    assertThat(cache).exists();
    assertThat(RuntimeFixture.gadgetFiles(tmp.resolve("ws")))
        .contains(turn).doesNotContain(RuntimeFixture.API_KEY);
    assertThat(page.request(Protocol.CANCEL_TURN, Map.of("turnId", turn)).get("ok").asBoolean())
        .isTrue();
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("cancelled");
    assertThat(fx.store.findTurn(turn).orElseThrow().status()).isEqualTo(TurnStatus.CANCELLED);
    await("drone free", () -> drone.activeTurnId().isEmpty());
    // the session goes on
    String next = submit(page, session, "next");
    assertThat(page.completion(next).get("status").asText()).isEqualTo("finished");
  }

  @Test
  void sessionLockAndWorkspaceModesAreHonoured() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.of(answer("done"));
    Path ws = tmp.resolve("ws");
    Chat chat = chat(ada, ws, llm);
    GadgetDrone drone = chat.drone();
    Page page = chat.page();
    String session = chat.session();
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();

    JsonNode lock = page.request(Protocol.REQUEST_SESSION_LOCK, Map.of("sessionId", session));
    assertThat(lock.get("ok").asBoolean()).as("lock: %s", lock).isTrue();
    assertThat(lock.get("workspaceId").asText()).isEqualTo(drone.workspaceId());
    assertThat(fx.store.findSession(session).orElseThrow().workspaceId())
        .isEqualTo(drone.workspaceId());
    assertThat(drone.workspace().data().chatSession().id()).isEqualTo(session);
    assertThat(drone.workspace().data().lockedProject().slug()).isEqualTo("sample");
    assertThat(java.nio.file.Files.readString(ws.resolve(".gadget/workspace.json")))
        .contains(session);

    // user mode: the person edits, the agent may not run
    JsonNode user = page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "user"));
    assertThat(user.get("ok").asBoolean()).as("user mode: %s", user).isTrue();
    assertThat(page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session, "prompt", "x"))
        .get("error").asText()).isEqualTo("every drone's workspace is in user mode");
    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "agent")).get("error").asText())
        .isEqualTo("agent mode is set by a work order");
    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "idle")).get("ok").asBoolean()).isTrue();
    String turn = submit(page, session, "now go");
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
  }

  @Test
  void userModeAndTheSessionLockSurviveADroneCrashAndRestart() throws Exception {
    fixture().server(b -> b);
    Person ada = fx.person("ada");
    ScriptedLlmClient llm = ScriptedLlmClient.of(answer("done"));
    Path ws = tmp.resolve("ws");
    Chat chat = chat(ada, ws, llm);
    Page page = chat.page();
    String session = chat.session();
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();
    assertThat(page.request(Protocol.REQUEST_SESSION_LOCK, Map.of("sessionId", session))
        .get("ok").asBoolean()).isTrue();
    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "user")).get("ok").asBoolean()).isTrue();
    assertThat(java.nio.file.Files.readString(ws.resolve(".gadget/workspace.json")))
        .contains("\"mode\" : \"user\"");

    chat.drone().abandon(); // as kill -9: nothing is written on the way out
    await("drone offline", () -> fx.store.findDrone(droneId).orElseThrow().status()
        == DroneStatus.OFFLINE);
    GadgetDrone again = fx.drone(ada, ws, llm);
    await("drone back", () -> fx.store.findDrone(droneId).orElseThrow().status()
        != DroneStatus.OFFLINE);
    assertThat(again.workspace().data().chatSession().id()).isEqualTo(session);
    assertThat(page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session, "prompt", "x"))
        .get("error").asText()).isEqualTo("every drone's workspace is in user mode");
    assertThat(page.request(Protocol.REQUEST_WORKSPACE_MODE,
        Map.of("droneId", droneId, "mode", "idle")).get("ok").asBoolean()).isTrue();
    assertThat(java.nio.file.Files.readString(ws.resolve(".gadget/workspace.json")))
        .contains("\"mode\" : \"idle\"");
    String turn = submit(page, session, "now go");
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
  }

  @Test
  void aCancelDuringTheCheckoutStopsGitAndTheTurn() throws Exception {
    fixture().server(b -> b.cancelTimeout(Duration.ofSeconds(30)));
    Person ada = fx.person("ada");
    // A "git server" that accepts connections and never answers: the clone hangs.
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50,
        java.net.InetAddress.getLoopbackAddress())) {
      List<java.net.Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
      Thread acceptor = new Thread(() -> {
        while (!silent.isClosed()) {
          try {
            accepted.add(silent.accept());
          } catch (java.io.IOException e) {
            return;
          }
        }
      }, "silent-git");
      acceptor.setDaemon(true);
      acceptor.start();
      ScriptedLlmClient llm = ScriptedLlmClient.of(answer("never asked"));
      Chat chat = chat(ada, tmp.resolve("ws"), llm);
      Page page = chat.page();
      JsonNode project = page.request(Protocol.CREATE_PROJECT, Map.of("name", "Hung",
          "slug", "hung", "gitUrl", "http://127.0.0.1:" + silent.getLocalPort() + "/hung.git"))
          .get("project");
      String session = page.request(Protocol.CREATE_SESSION,
          Map.of("projectId", project.get("_id").asText())).get("session").get("_id").asText();
      page.request(Protocol.WATCH_SESSION, Map.of("sessionId", session));
      String turn = submit(page, session, "clone this");
      await("git is connected", () -> !accepted.isEmpty());

      assertThat(page.request(Protocol.CANCEL_TURN, Map.of("turnId", turn)).get("ok")
          .asBoolean()).isTrue();
      JsonNode done = page.completion(turn);
      // the drone itself ends it (the server would wait 30 s before giving up on it)
      assertThat(done.get("status").asText()).isEqualTo("cancelled");
      assertThat(done.get("error").asText()).isEqualTo("cancelled before the agent started");
      assertThat(llm.requests()).isEmpty();
      await("drone free", () -> chat.drone().activeTurnId().isEmpty());
      for (java.net.Socket socket : accepted) {
        socket.close();
      }
    }
  }
}
