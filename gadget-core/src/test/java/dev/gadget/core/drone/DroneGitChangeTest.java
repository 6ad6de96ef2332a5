package dev.gadget.core.drone;

import static dev.gadget.core.drone.AcceptorServer.ask;
import static dev.gadget.core.drone.AcceptorServer.send;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.transport.Connection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent never works in a checkout git is changing: a real drone refuses a work order while
 * an undo or a commit it received is not answered yet, and refuses an undo or a commit while a
 * turn runs. The server checks that no turn runs before it asks, but a prompt (on another node,
 * or the same one) may come between its check and the drone's answer.
 */
class DroneGitChangeTest {
  @TempDir Path tmp;
  final AcceptorServer server = new AcceptorServer();

  @AfterEach
  void stop() {
    server.close();
  }

  private static void git(Path dir, String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("git", "-c", "user.name=T", "-c",
        "user.email=t@example.com"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0).as("git %s: %s",
        String.join(" ", args), out).isTrue();
  }

  @Test
  void aWorkOrderIsRefusedUntilAnUndoTheDroneReceivedIsAnswered() throws Exception {
    Path ws = tmp.resolve("ws");
    Connection c = server.connectedDrone(ws);
    // a checkout whose origin accepts a connection and never answers: its push holds the
    // drone's one git thread until the socket closes
    Path project = Files.createDirectories(ws.resolve("p"));
    git(project, "init", "-q", "-b", "main");
    Files.writeString(project.resolve("a.txt"), "a\n");
    git(project, "add", "a.txt");
    git(project, "commit", "-q", "-m", "a");
    git(project, "branch", "gadget/s1");
    try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      git(project, "remote", "add", "origin", "http://127.0.0.1:" + silent.getLocalPort()
          + "/r.git");
      CompletableFuture<JsonNode> push = send(c, Protocol.PUSH_CHANGES,
          "{\"slug\":\"p\",\"branch\":\"gadget/s1\",\"remote\":\"origin\"}");
      Socket held = silent.accept(); // git is pushing, on the drone's git thread
      CompletableFuture<JsonNode> undo = send(c, Protocol.UNDO_TURN,
          "{\"slug\":\"p\",\"turnIds\":[\"t0\"]}");

      JsonNode refused = ask(c, Protocol.PROCESS_WORK_ORDER, GadgetJson.mapper()
          .writeValueAsString(DroneBadPayloadTest.workOrder()));
      assertThat(refused.path("accepted").asBoolean(true)).isFalse();
      assertThat(refused.path("reason").asText()).isEqualTo("busy: the drone is undoing or "
          + "committing changes in this workspace; send the prompt again once that is done");
      assertThat(server.drone.activeTurnId()).isEmpty();

      held.close(); // the push fails, then the undo runs (and fails: t0 has no checkpoint)
      assertThat(push.get(60, TimeUnit.SECONDS).path("ok").asBoolean(true)).isFalse();
      assertThat(undo.get(60, TimeUnit.SECONDS).path("ok").asBoolean(true)).isFalse();
    }
    // answered: work orders are taken again (this one refused for the user mode, not for git)
    assertThat(ask(c, Protocol.REQUEST_WORKSPACE_MODE, "{\"droneId\":\"d\",\"mode\":\"user\"}")
        .path("ok").asBoolean()).isTrue();
    assertThat(ask(c, Protocol.PROCESS_WORK_ORDER, GadgetJson.mapper().writeValueAsString(
        DroneBadPayloadTest.workOrder())).path("reason").asText())
        .isEqualTo("the workspace is in user mode");
  }

  @Test
  void anUndoOrACommitWhileATurnRunsIsRefused() throws Exception {
    Path remote = tmp.resolve("remote");
    Files.createDirectories(remote);
    git(remote, "init", "-q", "-b", "main");
    Files.writeString(remote.resolve("a.txt"), "a\n");
    git(remote, "add", "a.txt");
    git(remote, "commit", "-q", "-m", "a");
    CountDownLatch asked = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    ScriptedLlmClient llm = ScriptedLlmClient.builder().script(r -> {
      asked.countDown();
      try {
        answer.await(60, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return ScriptedLlmClient.reply().text("Done.").build();
    }).build();
    Connection c = server.connectedDrone(tmp.resolve("ws"), llm);
    String order = GadgetJson.mapper().writeValueAsString(DroneBadPayloadTest.workOrder())
        .replace("/nowhere.git", remote.toString());
    assertThat(ask(c, Protocol.PROCESS_WORK_ORDER, order).path("accepted").asBoolean()).isTrue();
    assertThat(asked.await(60, TimeUnit.SECONDS)).as("the turn called its model").isTrue();
    try {
      JsonNode undo = ask(c, Protocol.UNDO_TURN, "{\"slug\":\"p\",\"turnIds\":[\"t0\"]}");
      assertThat(undo.path("error").asText())
          .isEqualTo("the agent is running turn t1; undo once it has ended");
      JsonNode commit = ask(c, Protocol.COMMIT_CHANGES, "{\"slug\":\"p\",\"turnIds\":[\"t1\"],"
          + "\"branch\":\"gadget/s1\",\"message\":\"m\",\"authorName\":\"A\","
          + "\"authorEmail\":\"a@example.com\"}");
      assertThat(commit.path("error").asText())
          .isEqualTo("the agent is running turn t1; commit once it has ended");
    } finally {
      answer.countDown();
    }
  }
}
