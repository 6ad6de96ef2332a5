package dev.gadget.examples;

import static dev.gadget.examples.CrashSuiteTest.read;
import static dev.gadget.examples.CrashSuiteTest.tail;
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
 * {@code kill -9} of the node that holds the drone, again and again at seeded random points of
 * a turn (the first round streaming, its command running, the second round streaming), each
 * killed node started again at once: every turn finishes, a stock socket.io-client page on
 * another node shows each exactly as stored (nothing lost, nothing applied twice), no model
 * output is stored twice and no command runs twice. Prints the figures. A longer run:
 * {@code -Dgadget.cluster.kills=20} (docs/CLUSTER.md).
 */
class ClusterKillsTest extends ClusterProcessFixture {
  static final int KILLS = Integer.getInteger("gadget.cluster.kills", 3);
  static final long SEED = 32;

  enum Phase { FIRST_ROUND, COMMAND, SECOND_ROUND }

  @Test
  void killedDroneNodesInterruptNoTurnAndLoseOrDoubleNothing() throws Exception {
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
    long t0 = System.nanoTime();
    for (int n = 0; n < KILLS; n++) {
      int pageNode = (holder + 2) % 3;
      List<JsonNode> page = stockPage(ports[pageNode], ada.pageToken(), session.id());
      Process pageProcess = processes.get(processes.size() - 1);
      CrashSuiteTest.Page asker = new CrashSuiteTest.Page(ports[pageNode], ada.pageToken(),
          session.id());
      String turnId = submit(asker, n);
      Phase phase = Phase.values()[random.nextInt(3)];
      int at = 2 + random.nextInt(CrashSuiteTest.TOKENS - 4);
      int turn = n;
      switch (phase) {
        case FIRST_ROUND -> await("turn " + n + " streaming", () -> llm.written(turn, 1) >= at);
        case COMMAND -> await("turn " + n + "'s command", () -> Files.exists(
            project.resolve("cmd-" + turn + ".pid")));
        case SECOND_ROUND -> await("turn " + n + "'s second round",
            () -> llm.written(turn, 2) >= at);
      }
      nodes[holder].destroyForcibly();
      nodes[holder].waitFor(30, TimeUnit.SECONDS);
      int killed = holder;
      holder = (holder + 1) % 3; // the drone tries the next server
      nodes[killed] = node("n" + killed + "-" + (n + 1), ports[killed]);
      try {
        await("turn " + n + "'s end on the page", () -> events(page, turnId).stream()
            .anyMatch(l -> l.path("name").asText().equals(Protocol.WORK_ORDER_COMPLETE)));
      } catch (AssertionError e) {
        throw new AssertionError(phase + " kill of turn " + n + ": " + e.getMessage()
            + "\ndrone:\n" + tail(tmp.resolve("drone.log")), e);
      }
      ChatTurn t = store.findTurn(turnId).orElseThrow();
      if (t.status() != TurnStatus.FINISHED) {
        unfinished.add(turnId + " " + t.status() + ": " + t.error());
      }
      int[] twice = new int[1];
      await("turn " + n + " shown as stored", () -> view(events(page, turnId), new int[1])
          .equals(stored(store.findTurn(turnId).orElseThrow())) || unfinished.size() > 0);
      if (!view(events(page, turnId), twice).equals(stored(t))) {
        lost++;
      }
      doubled += twice[0];
      repeated += CrashSuiteTest.repeats(t);
      if (Files.readAllLines(project.resolve("runs-" + n + ".log")).size() != 1) {
        ranTwice++;
      }
      System.out.printf("  kill %d (%s, token %d): node %d killed, turn %s %s%n", n, phase, at,
          killed, turnId, t.status());
      asker.client.close();
      pageProcess.destroyForcibly();
    }
    System.out.printf("cluster kills (seed %d): %d kills of the drone's node in %d s; turns not "
        + "finished: %d; pages' views unlike the store: %d; events applied twice: %d; stored "
        + "turns with repeated output: %d; commands run twice: %d%n", SEED, KILLS,
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), unfinished.size(), lost, doubled,
        repeated, ranTwice);
    assertThat(unfinished).as("turns a kill kept from finishing").isEmpty();
    assertThat(lost).as("turns a page shows unlike the store").isZero();
    assertThat(doubled).as("events a page applied twice").isZero();
    assertThat(repeated).as("stored turns with repeated model output").isZero();
    assertThat(ranTwice).as("commands run twice").isZero();
    assertThat(read(tmp.resolve("drone.log"))).contains("[drone] connected to ");
  }

  /** Submits turn {@code n}'s prompt, again while the drone moves to another node. */
  private String submit(CrashSuiteTest.Page page, int n) {
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
