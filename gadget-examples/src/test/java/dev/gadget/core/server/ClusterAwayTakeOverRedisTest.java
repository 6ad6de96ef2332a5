package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.InMemoryTransport;
import dev.gadget.core.transport.TransportClient;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A drone that moves while Redis is down (docs/CLUSTER.md, "Fencing"): no node can lease it, so
 * the node it connects to claims its turn in the store with the store's fence plus one, whether
 * it takes the turn over or still runs it (the drone back from the other node). The node it
 * left, which cannot ask Redis who holds the drone and so goes on as if it did, ends the turn at
 * the close of its grace period with the fence its writes carried: the store refuses that end,
 * and the turn finishes where the drone is; so too for a turn started during the outage, whose
 * writes carry the store's fence plus one. Two servers on one store and a real redis-server,
 * killed mid-turn (or before it).
 */
class ClusterAwayTakeOverRedisTest extends RedisNodesTestBase {
  private static final int A = 0;
  private static final int B = 1;
  private final BlockingQueue<String> ordersOnA = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> resumes = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> endsTriedOnA = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> endsTriedOnB = new LinkedBlockingQueue<>();

  @Override
  InMemoryTransport transport(int node) {
    // a socket a node drops is not opened again: the drone has gone to the other
    return noReconnect();
  }

  @Override
  GadgetServer.Builder settings(int node, GadgetServer.Builder builder) {
    return builder.store(endsRecorded(fx.store, node == A ? endsTriedOnA : endsTriedOnB));
  }

  /**
   * A turn on A, prompted on {@code page}, its first 50 tokens stored; Redis killed before the
   * drone connects (no node leases it) or after those tokens (A's lease fences them); then the
   * drone leaves A, which waits its grace period.
   */
  private String turnOnA(Page page, boolean redisDownFirst) throws Exception {
    if (redisDownFirst) {
      redis.kill();
    }
    Connection onA = rawDrone(A, "ws-1", null, new TransportClient.ClientListener() {},
        c -> c.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
          ordersOnA.add(args.get(0).get("workOrder").get("chatTurn").get("_id").asText());
          ack.send(Protocol.args(new Payloads.WorkOrderAck(true, null)));
        }));
    if (redisDownFirst) {
      await("the drone stored", () -> fx.store.listDrones(ada.user().id()).size() == 1);
    } else {
      awaitDrones(1);
    }
    String turn = streamedTurn(page, ordersOnA, onA, 50);
    if (!redisDownFirst) {
      redis.kill();
    }
    onA.disconnect();
    return turn;
  }

  /** The drone, running {@code turn}, connects to {@code node}, which asks for its events. */
  private Connection resumingOn(int node, String turn) throws Exception {
    Connection c = rawDrone(node, "ws-1", turn, new TransportClient.ClientListener() {},
        d -> d.on(Protocol.RESUME_STREAM, (args, ack) -> resumes.add(args.get(0)
            .get("turnId").asText())));
    assertThat(resumes.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("node n" + node + " runs the turn without a lease").isEqualTo(turn);
    c.emit(Protocol.STREAM_REPLAY, Protocol.args(new ResumePayloads.StreamReplay(turn, 0,
        true)));
    return c;
  }

  @Test
  void theOldNodesEndIsRefusedAndTheTurnFinishesOnTheNodeThatTookItOverWithoutRedis()
      throws Exception {
    start(2);
    Page page = page(B);
    String turn = turnOnA(page, false);
    Connection onB = resumingOn(B, turn);
    tokens(onB, turn, 0, 60);
    await("B's tokens stored", () -> storedText(turn).equals(expected(60)));

    refusedThenFinished(endsTriedOnA, "A", onB, page, turn, 60);
  }

  /**
   * The drone goes to B and, still within A's grace period, back to A, which still runs the
   * turn: A claims it again above B's claim, so B's end at the close of its own grace period is
   * refused, and the turn finishes on A.
   */
  @Test
  void aDroneBackOnTheNodeItLeftWhileRedisIsDownFinishesItsTurnThere() throws Exception {
    start(2);
    Page page = page(A);
    String turn = turnOnA(page, false);
    Connection onB = resumingOn(B, turn);
    tokens(onB, turn, 0, 60);
    await("B's tokens stored", () -> storedText(turn).equals(expected(60)));
    onB.disconnect(); // B waits its grace period

    Connection backOnA = resumingOn(A, turn);
    tokens(backOnA, turn, 0, 70);
    await("A's tokens stored", () -> storedText(turn).equals(expected(70)));
    refusedThenFinished(endsTriedOnB, "B", backOnA, page, turn, 70);
  }

  /**
   * A turn started while Redis is down (its drone leased by no node) is fenced too: its writes
   * carry the store's fence plus one, so the node it is taken over by claims above them and the
   * end of the node it left is refused.
   */
  @Test
  void aTurnStartedWhileRedisIsDownIsFencedToo() throws Exception {
    start(2);
    String turn = turnOnA(page(A), true); // prompted where the drone is: Redis carries no mail
    Page onPageB = page(B);
    onPageB.request(Protocol.WATCH_SESSION, java.util.Map.of("sessionId",
        fx.store.findTurn(turn).orElseThrow().sessionId()));
    Connection onB = resumingOn(B, turn);
    tokens(onB, turn, 0, 60);
    await("B's tokens stored", () -> storedText(turn).equals(expected(60)));
    refusedThenFinished(endsTriedOnA, "A", onB, onPageB, turn, 60);
  }

  /**
   * The node the drone left ({@code left}) ends the turn at the close of its grace period and
   * the store refuses it; the drone ({@code drone}, at token {@code from}) then finishes it.
   */
  private void refusedThenFinished(BlockingQueue<String> endsTried, String left,
      Connection drone, Page page, String turn, int from) throws Exception {
    assertThat(endsTried.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .as("node " + left + " ends the turn at the close of its grace period").isEqualTo(turn);
    assertThat(stored(turn)).as("the turn in the store after " + left + "'s end")
        .isEqualTo(TurnStatus.PROCESSING);
    tokens(drone, turn, from, 100);
    end(drone, turn);
    assertThat(page.completion(turn).get("status").asText()).isEqualTo("finished");
    await("the drone's end stored", () -> stored(turn) == TurnStatus.FINISHED);
    assertThat(storedText(turn)).isEqualTo(expected(100));
  }
}
