package dev.gadget.examples;

import static dev.gadget.examples.GadgetProcesses.java;
import static dev.gadget.examples.GadgetProcesses.read;
import static dev.gadget.examples.GadgetProcesses.tail;
import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.cluster.redis.TestRedis;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.store.mongo.MongoChatStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Three {@code gadget server --cluster} processes on one Redis (a real redis-server) and one
 * store (a MongoDB-protocol server in a process of its own), a real {@code gadget drone} on node
 * A, a page on the stock socket.io-client on node B, the prompts sent through node C. A turn's
 * events reach both pages once and in order; then node A is killed with SIGKILL mid-turn: the
 * drone goes to node B, which takes the turn over, and it finishes with nothing lost or doubled
 * and its command run once; then Redis is killed mid-turn and started again empty; then node C
 * (a page's, and the one that took the prompt) is killed mid-turn and a page that starts
 * watching on another node gets the whole turn.
 */
class ClusterProcessTest extends ClusterProcessFixture {
  @Test
  void threeNodesServeTurnsAndNoKillLosesOrDoublesAnything() throws Exception {
    seed();

    int[] ports = {freePort(), freePort(), freePort()};
    Process a = node("a", ports[0]);
    node("b", ports[1]);
    Process c = node("c", ports[2]);
    Path ws = tmp.resolve("ws");
    drone(ws, ports);
    List<JsonNode> onB = stockPage(ports[1], ada.pageToken(), session.id());
    CrashPage onC = new CrashPage(ports[2], ada.pageToken(), session.id());
    closeables.add(onC.client);

    // one turn, prompted on C, run on A, watched on B and C
    String first = onC.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", "turn-0")).path("turnId").asText();
    assertThat(first).isNotEmpty();
    await("the first turn's end on B", () -> events(onB, first).stream()
        .anyMatch(l -> l.path("name").asText().equals(Protocol.WORK_ORDER_COMPLETE)));
    await("the first turn's end on C", () -> onC.ended(first));
    ChatTurn done = store.findTurn(first).orElseThrow();
    assertThat(done.status()).isEqualTo(TurnStatus.FINISHED);
    int[] twice = new int[1];
    assertThat(view(events(onB, first), twice)).containsExactlyElementsOf(stored(done));
    assertThat(twice[0]).as("events the stock page got twice").isZero();
    assertThat(onC.finishedBlocks(first)).allMatch(b -> b.storedIn(done));
    assertThat(read(tmp.resolve("server-a.log"))).as("A pushes to B and C (--cluster-peer)")
        .contains("linked to node b at 127.0.0.1:", "linked to node c at 127.0.0.1:");

    // the next: node A (the drone's) killed mid-stream
    String second = onC.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", "turn-1")).path("turnId").asText();
    await("the second turn streaming", () -> llm.written(1, 1) >= 6);
    List<String> seenBefore = view(events(onB, second), new int[1]);
    a.destroyForcibly();
    a.waitFor(30, TimeUnit.SECONDS);
    try {
      await("the second turn's end on B", () -> events(onB, second).stream()
          .anyMatch(l -> l.path("name").asText().equals(Protocol.WORK_ORDER_COMPLETE)));
      await("the second turn's end on C", () -> onC.ended(second));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\ndrone:\n" + tail(tmp.resolve("drone.log"))
          + "\nnode b:\n" + tail(tmp.resolve("server-b.log")) + "\nnode c:\n"
          + tail(tmp.resolve("server-c.log")), e);
    }
    ChatTurn survived = store.findTurn(second).orElseThrow();
    assertThat(survived.status()).as("the turn whose node was killed").isEqualTo(
        TurnStatus.FINISHED);
    int[] again = new int[1];
    List<String> shown = view(events(onB, second), again);
    assertThat(shown).containsExactlyElementsOf(stored(survived));
    assertThat(again[0]).as("events the stock page applied twice").isZero();
    for (int i = 0; i < seenBefore.size(); i++) {
      assertThat(shown.get(i)).as("block %d the page showed before the kill", i)
          .startsWith(seenBefore.get(i));
    }
    assertThat(StoredTurns.repeats(survived)).as("repeated model output").isZero();
    assertThat(onC.finishedBlocks(second)).isNotEmpty().allMatch(b -> b.storedIn(survived));
    assertThat(Files.readAllLines(ws.resolve("greeter").resolve("runs-1.log")))
        .as("the turn's command runs").hasSize(1);
    assertThat(read(tmp.resolve("server-b.log")) + read(tmp.resolve("server-c.log")))
        .contains("on a node that left the cluster");

    // Redis killed mid-turn and started again (empty: no persistence): the turn goes on, and
    // the page on C, which gets it through Redis, misses nothing of it
    String third = onC.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", "turn-2")).path("turnId").asText();
    await("the third turn streaming", () -> llm.written(2, 1) >= 4);
    redis.kill();
    await("the third turn streaming on without Redis", () -> llm.written(2, 1) >= 10);
    await("node b's /metrics to say Redis is away", () -> metrics(ports[1])
        .contains("gadget_cluster_reachable{node=\"b\"} 0.0"));
    redis.start();
    await("node b's /metrics to say Redis is back", () -> metrics(ports[1])
        .contains("gadget_cluster_reachable{node=\"b\"} 1.0"));
    await("the third turn's end on C", () -> onC.ended(third));
    ChatTurn afterRedis = store.findTurn(third).orElseThrow();
    assertThat(afterRedis.status()).isEqualTo(TurnStatus.FINISHED);
    // (that page does not listen to turnChanges: every other block, whole)
    assertThat(onC.finishedBlocks(third)).hasSize((int) afterRedis.blocks().stream()
        .filter(b -> !(b instanceof TurnBlock.Diff)).count())
        .allMatch(b -> b.storedIn(afterRedis));
    List<Long> seqs = onC.events(third).stream().filter(e -> e.payload().has("seq"))
        .map(e -> e.payload().get("seq").asLong()).toList();
    assertThat(seqs).as("the seqs page C got").isSorted().doesNotHaveDuplicates();
    assertThat(read(tmp.resolve("server-b.log"))).as("node b's log")
        .contains("this node goes on serving its own pages and drones until it is back")
        .contains("answers again")
        .contains("events of live turns again: the cluster had lost them");

    // the node of page C (which also took the prompt) killed mid-turn: a page that starts
    // watching on another node (node A started again), not the drone's, gets all of it
    node("a2", ports[0]);
    String fourth = onC.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
        "prompt", "turn-3")).path("turnId").asText();
    await("the fourth turn streaming", () -> llm.written(3, 1) >= 6);
    String sawOnC = CrashPage.openTokens(onC.events(fourth)).stream()
        .map(o -> (String) o[1]).reduce("", String::concat);
    c.destroyForcibly();
    onC.client.close();
    List<JsonNode> onA2 = stockPage(ports[0], ada.pageToken(), session.id());
    await("the fourth turn's end on the new page", () -> events(onA2, fourth).stream()
        .anyMatch(l -> l.path("name").asText().equals(Protocol.WORK_ORDER_COMPLETE))
        || store.findTurn(fourth).orElseThrow().status() != TurnStatus.PROCESSING);
    ChatTurn last = store.findTurn(fourth).orElseThrow();
    assertThat(last.status()).isEqualTo(TurnStatus.FINISHED);
    JsonNode snapshot = onA2.stream().filter(l -> l.path("event").asText().equals("snapshot"))
        .findFirst().orElseThrow().path("snapshot");
    boolean midTurn = false;
    for (JsonNode l : snapshot.path("live")) {
      midTurn |= l.path("turnId").asText().equals(fourth);
    }
    System.out.println("cluster test: the page on node a2 started watching the fourth turn "
        + (midTurn ? "mid-turn" : "after its end") + "; page C had seen " + sawOnC.length()
        + " characters of its open block when its node was killed");
    int[] doubled = new int[1];
    await("the new page's view of the fourth turn", () -> view(snapshot, fourth,
        events(onA2, fourth), new int[1]).equals(stored(store.findTurn(fourth).orElseThrow())));
    view(snapshot, fourth, events(onA2, fourth), doubled);
    assertThat(doubled[0]).as("events the new page applied twice").isZero();
    assertThat(stored(last).get(0)).as("what page C saw before its node died")
        .startsWith(sawOnC);
  }
}
