package dev.gadget.examples;

import static dev.gadget.examples.GadgetProcesses.read;
import static dev.gadget.examples.GadgetProcesses.tail;
import static dev.gadget.examples.PageFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Protocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code kill -9} of each node role in turn (the node that holds the drone, the node of the
 * page that watches, the node that took the prompt) at seeded random points of a turn (the first
 * round streaming, its command running, the second round streaming), each killed node started
 * again at once, then Redis killed and started again (empty) mid-turn: every turn finishes, a
 * stock socket.io-client page shows each exactly as stored (nothing lost, nothing applied twice;
 * a page whose node was killed is replaced by one on another node, and what the first had shown
 * is still there), no model output is stored twice and no command runs twice. Prints the
 * figures. {@code gadget.cluster.kills} is the number of kills of <em>each</em> role; the
 * issue's run: {@code -Dgadget.cluster.kills=20 -Dgadget.cluster.redisRestarts=20}
 * (docs/CLUSTER.md).
 */
class ClusterKillsTest extends ClusterProcessFixture {
  /** Kills of each node role (so three times as many node kills in all). */
  static final int KILLS = Integer.getInteger("gadget.cluster.kills", 1);
  static final int REDIS_RESTARTS = Integer.getInteger("gadget.cluster.redisRestarts", 1);
  static final long SEED = 32;

  enum Phase { FIRST_ROUND, COMMAND, SECOND_ROUND }

  /** What is killed: a node by its role in the turn, or Redis. */
  enum Role { DRONE_NODE, PAGE_NODE, PROMPT_NODE, REDIS }

  @Test
  void killedNodesOfEveryRoleAndRedisInterruptNoTurnAndLoseOrDoubleNothing() throws Exception {
    seed();
    int[] ports = {freePort(), freePort(), freePort()};
    Process[] nodes = new Process[3];
    for (int i = 0; i < 3; i++) {
      nodes[i] = node("n" + i + "-0", ports[i]);
    }
    Path ws = tmp.resolve("ws");
    Path project = ws.resolve("greeter");
    drone(ws, ports);
    Random random = new Random(SEED);
    int holder = 0;
    List<String> unfinished = new ArrayList<>();
    int lost = 0;
    int doubled = 0;
    int repeated = 0;
    int ranTwice = 0;
    int[] killsOf = new int[Role.values().length];
    long t0 = System.nanoTime();
    for (int n = 0; n < 3 * KILLS + REDIS_RESTARTS; n++) {
      Role role = n < 3 * KILLS ? Role.values()[n % 3] : Role.REDIS;
      killsOf[role.ordinal()]++;
      int pageNode = (holder + 2) % 3;
      int promptNode = (holder + 1) % 3;
      List<JsonNode> page = stockPage(ports[pageNode], ada.pageToken(), session.id());
      List<Process> pageProcesses = new ArrayList<>(List.of(processes.get(processes.size() - 1)));
      CrashPage asker = new CrashPage(ports[promptNode], ada.pageToken(),
          session.id());
      String turnId = submit(asker, n);
      Phase phase = Phase.values()[random.nextInt(3)];
      int at = 2 + random.nextInt(ScriptLlm.TOKENS - 4);
      int turn = n;
      switch (phase) {
        case FIRST_ROUND -> await("turn " + n + " streaming", () -> llm.written(turn, 1) >= at);
        case COMMAND -> await("turn " + n + "'s command", () -> Files.exists(
            project.resolve("cmd-" + turn + ".pid")));
        case SECOND_ROUND -> await("turn " + n + "'s second round",
            () -> llm.written(turn, 2) >= at);
      }
      List<String> seenBefore = null;
      int killed = -1;
      if (role == Role.REDIS) {
        redis.kill();
        if (phase != Phase.COMMAND) {
          int round = phase == Phase.FIRST_ROUND ? 1 : 2;
          await("turn " + n + " streaming without Redis", () -> llm.written(turn, round) > at + 1);
        }
        redis.start();
      } else {
        killed = role == Role.DRONE_NODE ? holder : role == Role.PAGE_NODE ? pageNode : promptNode;
        if (role == Role.PAGE_NODE) {
          seenBefore = view(events(page, turnId), new int[1]);
        }
        nodes[killed].destroyForcibly();
        nodes[killed].waitFor(30, TimeUnit.SECONDS);
        if (role == Role.DRONE_NODE) {
          holder = (holder + 1) % 3; // the drone tries the next server
        }
        nodes[killed] = node("n" + killed + "-" + (n + 1), ports[killed]);
      }
      if (role == Role.PAGE_NODE) { // the page comes back through another node
        page = stockPage(ports[promptNode], ada.pageToken(), session.id());
        pageProcesses.add(processes.get(processes.size() - 1));
      }
      List<JsonNode> watching = page;
      JsonNode snapshot = watching.stream().filter(l -> l.path("event").asText()
          .equals("snapshot")).findFirst().orElseThrow().path("snapshot");
      try {
        await("turn " + n + "'s end on the page", () -> endedIn(snapshot, turnId)
            || events(watching, turnId).stream().anyMatch(l -> l.path("name").asText()
                .equals(Protocol.WORK_ORDER_COMPLETE)));
      } catch (AssertionError e) {
        throw new AssertionError(role + " " + phase + " kill of turn " + n + ": "
            + e.getMessage() + "\ndrone:\n" + tail(tmp.resolve("drone.log")), e);
      }
      ChatTurn t = store.findTurn(turnId).orElseThrow();
      if (t.status() != TurnStatus.FINISHED) {
        unfinished.add(turnId + " " + t.status() + ": " + t.error());
      }
      int[] twice = new int[1];
      await("turn " + n + " shown as stored", () -> view(snapshot, turnId,
          events(watching, turnId), new int[1]).equals(stored(store.findTurn(turnId)
          .orElseThrow())) || unfinished.size() > 0);
      if (!view(snapshot, turnId, events(watching, turnId), twice).equals(stored(t))
          || (seenBefore != null && !shownBefore(seenBefore, stored(t)))) {
        lost++;
      }
      doubled += twice[0];
      repeated += StoredTurns.repeats(t);
      if (Files.readAllLines(project.resolve("runs-" + n + ".log")).size() != 1) {
        ranTwice++;
      }
      System.out.printf("  kill %d (%s, %s, token %d): %s killed, turn %s %s%n", n, role, phase,
          at, killed < 0 ? "redis" : "node " + killed, turnId, t.status());
      asker.client.close();
      pageProcesses.forEach(Process::destroyForcibly);
    }
    System.out.printf("cluster kills (seed %d): %d kills of the drone's node, %d of a page's "
        + "node, %d of the prompt's node, %d Redis restarts in %d s; turns not finished: %d; "
        + "pages' views unlike the store: %d; events applied twice: %d; stored turns with "
        + "repeated output: %d; commands run twice: %d%n", SEED, killsOf[0], killsOf[1],
        killsOf[2], killsOf[3], TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0),
        unfinished.size(), lost, doubled, repeated, ranTwice);
    assertThat(unfinished).as("turns a kill kept from finishing").isEmpty();
    assertThat(lost).as("turns a page shows unlike the store").isZero();
    assertThat(doubled).as("events a page applied twice").isZero();
    assertThat(repeated).as("stored turns with repeated model output").isZero();
    assertThat(ranTwice).as("commands run twice").isZero();
    assertThat(read(tmp.resolve("drone.log"))).contains("[drone] connected to ");
  }

  /** Whether a page's snapshot has the turn ended already (it came after the turn's end). */
  private static boolean endedIn(JsonNode snapshot, String turnId) {
    for (JsonNode t : snapshot.path("turns")) {
      if (t.path("_id").asText().equals(turnId)) {
        return !t.path("status").asText().equals("processing");
      }
    }
    return false;
  }

  /** Whether each block a page showed is the start of the stored block in its place. */
  private static boolean shownBefore(List<String> shown, List<String> stored) {
    for (int i = 0; i < shown.size(); i++) {
      if (i >= stored.size() || !stored.get(i).startsWith(shown.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** Submits turn {@code n}'s prompt, again while the drone moves to another node. */
  private String submit(CrashPage page, int n) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      JsonNode reply = page.request(Protocol.SUBMIT_PROMPT, Map.of("sessionId", session.id(),
          "prompt", "turn-" + n));
      if (reply.hasNonNull("turnId")) {
        return reply.get("turnId").asText();
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("turn " + n + " was not accepted: " + reply);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
  }
}
