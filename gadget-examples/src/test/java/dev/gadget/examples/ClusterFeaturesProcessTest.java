package dev.gadget.examples;

import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.TestRepo;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The page's requests across nodes, on real processes: three {@code gadget server --cluster}
 * nodes on one real {@code redis-server} and one store, a real {@code gadget drone} on node A,
 * pages on nodes B and C. An approval policy set on C holds for a turn prompted on B and run on
 * A, and C's answer lets the command run, once; C undoes that turn in A's workspace; B commits
 * the next turn's changes there; a chat whose turn runs on A cannot be deleted from B; C
 * cancels a turn whose command runs on A, which stops it.
 */
class ClusterFeaturesProcessTest extends ClusterProcessFixture {
  @Test
  void approvalsUndoCommitDeletionAndCancelWorkFromNodesThatDoNotHoldTheDrone()
      throws Exception {
    seed();
    int[] ports = {freePort(), freePort(), freePort()};
    for (int i = 0; i < 3; i++) {
      node(String.valueOf((char) ('a' + i)), ports[i]);
    }
    Path ws = tmp.resolve("ws");
    Path project = ws.resolve("greeter");
    drone(ws, ports); // on A, the first it knows
    CrashPage onB = page(ports[1]);
    CrashPage onC = page(ports[2]);
    List<JsonNode> asked = new CopyOnWriteArrayList<>();
    onC.connection.on(Protocol.APPROVAL_PENDING, (args, ack) -> asked.add(args.get(0)));
    String sessionId = session.id();

    // an approval policy set on C, a prompt on B, the command approved on C
    assertThat(onC.request(Protocol.APPROVAL_POLICY, Map.of("sessionId", sessionId,
        "policy", "commands")).path("error").isMissingNode()).isTrue();
    String first = submit(onB, "turn-0");
    await("the command pending approval on C", () -> !asked.isEmpty());
    JsonNode request = asked.get(0);
    assertThat(request.path("turnId").asText()).isEqualTo(first);
    assertThat(project.resolve("runs-0.log")).as("before the answer").doesNotExist();
    JsonNode answer = onC.request(Protocol.ANSWER_APPROVAL, Map.of("turnId", first,
        "callId", request.path("callId").asText(), "decision", "approved"));
    assertThat(answer.path("error").isMissingNode()).as(answer.toString()).isTrue();
    await("the first turn's end on B", () -> onB.ended(first));
    assertThat(status(first)).isEqualTo(TurnStatus.FINISHED);
    assertThat(Files.readAllLines(project.resolve("runs-0.log"))).hasSize(1);
    assertThat(onC.request(Protocol.APPROVAL_POLICY, Map.of("sessionId", sessionId,
        "policy", "never")).path("error").isMissingNode()).isTrue();

    // undone from C: the file the command wrote in A's workspace is gone
    JsonNode undone = onC.request(Protocol.UNDO_TURN, Map.of("turnId", first));
    assertThat(undone.path("ok").asBoolean()).as(undone.toString()).isTrue();
    assertThat(project.resolve("runs-0.log")).doesNotExist();

    // the next turn's changes committed from B, on the session's branch in A's workspace
    String second = submit(onB, "turn-1");
    await("the second turn's end on C", () -> onC.ended(second));
    JsonNode commit = onB.request(Protocol.COMMIT_CHANGES, Map.of("sessionId", sessionId,
        "message", "runs of turn 1"));
    assertThat(commit.path("ok").asBoolean()).as(commit.toString()).isTrue();
    assertThat(TestRepo.gitIn(project, "log", "-1", "--format=%s",
        commit.path("branch").asText()).trim()).isEqualTo("runs of turn 1");
    assertThat(TestRepo.gitIn(project, "show", "--name-only", "--format=",
        commit.path("commit").asText())).contains("runs-1.log");

    // while a turn runs on A: B cannot delete its chat, and C cancels it mid-command
    llm.longCommands.add(2);
    String third = submit(onB, "turn-2");
    await("the third turn's command running", () -> Files.exists(project.resolve("cmd-2.pid")));
    JsonNode deleted = onB.request(Protocol.DELETE_SESSION, Map.of("sessionId", sessionId));
    assertThat(deleted.path("error").asText()).contains("still working");
    JsonNode cancel = onC.request(Protocol.CANCEL_TURN, Map.of("turnId", third));
    assertThat(cancel.path("error").isMissingNode()).as(cancel.toString()).isTrue();
    await("the third turn's end on B", () -> onB.ended(third));
    assertThat(status(third)).isEqualTo(TurnStatus.CANCELLED);
    long pid = Long.parseLong(Files.readString(project.resolve("cmd-2.pid")).trim());
    await("the cancelled command gone", () -> ProcessHandle.of(pid).isEmpty());
    assertThat(store.findSession(sessionId)).as("the chat B could not delete").isPresent();
  }

  private CrashPage page(int port) {
    CrashPage p = new CrashPage(port, ada.pageToken(), session.id());
    closeables.add(p.client);
    return p;
  }

  private String submit(CrashPage page, String prompt) {
    JsonNode r = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", prompt));
    assertThat(r.path("turnId").asText()).as(r.toString()).isNotEmpty();
    return r.path("turnId").asText();
  }

  private TurnStatus status(String turnId) {
    return store.findTurn(turnId).map(ChatTurn::status).orElseThrow();
  }
}
