package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.transport.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One running turn per chat across nodes (docs/CLUSTER.md, "Chat claims"): two servers on one
 * store and a real redis-server, a raw drone of ada on each. Two prompts for one chat sent to
 * the two nodes at once start exactly one turn, round after round; and a prompt sent the moment
 * a page hears {@code workOrderComplete} is taken.
 */
class ChatClaimRedisTest extends RedisNodesTestBase {
  private static final int ROUNDS = 25;

  @Test
  void twoPromptsForOneChatOnTwoNodesAtOnceStartExactlyOneTurnEachRound() throws Exception {
    start(2);
    List<Connection> drones = List.of(drone(0), drone(1));
    List<Page> pages = List.of(page(0), page(1));
    String session = fx.watchedSession(pages.get(0));
    awaitDrones(2);
    for (int round = 0; round < ROUNDS; round++) {
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<JsonNode>> replies = new ArrayList<>();
      for (Page p : pages) {
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        replies.add(reply);
        new Thread(() -> {
          try {
            go.await();
            reply.complete(p.request(Protocol.SUBMIT_PROMPT,
                Map.of("sessionId", session, "prompt", "hello")));
          } catch (Exception e) {
            reply.completeExceptionally(e);
          }
        }).start();
      }
      go.countDown();
      List<String> started = new ArrayList<>();
      for (CompletableFuture<JsonNode> r : replies) {
        JsonNode reply = r.get(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (reply.has("turnId")) {
          started.add(reply.get("turnId").asText());
        } else {
          assertThat(reply.path("error").asText()).as("round %d", round)
              .contains("already running");
        }
      }
      assertThat(started).as("turns started in round %d", round).hasSize(1);
      String turn = started.get(0);
      assertThat(orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .isEqualTo(turn);
      assertThat(orders).as("no second work order in round %d", round).isEmpty();
      String droneId = fx.store.findTurn(turn).orElseThrow().droneId();
      int on = fx.store.findDrone(droneId).orElseThrow().workspaceId().equals("ws-0") ? 0 : 1;
      end(drones.get(on), turn);
      pages.get(0).completion(turn);
    }
    assertThat(fx.store.listTurns(session)).hasSize(ROUNDS);
  }

  @Test
  void aPromptSentOnHearingTheTurnsEndIsTaken() throws Exception {
    start(2);
    Connection drone = drone(0);
    Page onB = page(1);
    String session = fx.watchedSession(onB);
    awaitDrones(1);
    BlockingQueue<JsonNode> nextReplies = new LinkedBlockingQueue<>();
    onB.connection.on(Protocol.WORK_ORDER_COMPLETE, (args, ack) -> {
      onB.events.add(new Page.Event(Protocol.WORK_ORDER_COMPLETE, args.get(0)));
      // at once, on the transport's thread, as a page that queues its next prompt does
      onB.connection.emitWithAck(Protocol.SUBMIT_PROMPT, Protocol.args(Map.of("sessionId",
              session, "prompt", "next")), RuntimeFixture.WAIT)
          .whenComplete((reply, error) -> nextReplies.add(error != null
              ? GadgetJson.mapper().createObjectNode().put("error", error.toString())
              : reply.get(0)));
    });
    String turn = onB.submit(session, "first");
    for (int round = 0; round < ROUNDS; round++) {
      assertThat(orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .isEqualTo(turn);
      end(drone, turn);
      JsonNode next = nextReplies.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(next).as("the answer to the prompt sent on the end of round %d", round)
          .isNotNull();
      assertThat(next.has("turnId")).as("round %d: %s", round, next).isTrue();
      turn = next.get("turnId").asText();
    }
  }
}
