package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.protocol.ResumePayloads;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ForwardingCluster;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.InMemoryTransport;
import dev.gadget.core.transport.TransportClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Ending an orphaned turn is fenced (docs/CLUSTER.md, "Fencing"). Three servers on one store
 * (which fences turns) and one in-process cluster: ada's drone runs a turn on node A, a page
 * watches it on node C, then A goes away. Node C's sweep finds the turn without a node; in the
 * very sweep that would end it, right after its look-up answered "no holder" and before it
 * stores the end, the drone reconnects to node B, which leases it and claims the turn. C's end
 * must not land: the turn goes on at B, and C's page hears of no end until the drone finishes
 * the turn there. With a plain (unfenced) end the turn would be stored {@code interrupted}.
 */
class OrphanTurnFencingTest extends RuntimeTestBase {
  /** Node C's grace period; A and B wait long enough never to end the turn themselves. */
  private static final Duration GRACE_ON_C = Duration.ofSeconds(2);

  private final InProcessCluster hub = new InProcessCluster();
  private final AheadClock clockOfC = new AheadClock();
  private final BlockingQueue<String> orders = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> resumes = new LinkedBlockingQueue<>();
  private List<InMemoryTransport> transports;
  private RacedLookups lookupsOfC;
  private Person ada;

  @Test
  void anOrphansEndLookedUpBeforeAnotherNodeTookTheTurnOverIsRefusedAndToldToNoPage()
      throws Exception {
    Nodes nodes = startNodes(hub, (id, b) -> id.equals("c")
        ? b.droneGracePeriod(GRACE_ON_C).clock(clockOfC).ackTimeout(Duration.ofSeconds(5))
        : b.droneGracePeriod(Duration.ofMinutes(10)).ackTimeout(Duration.ofSeconds(5)),
        (id, c) -> id.equals("c") ? (lookupsOfC = new RacedLookups(c)) : c, "a", "b", "c");
    transports = nodes.transports();
    ada = fx.person("ada");
    Connection onA = drone(0, null);
    Page onC = page(2);
    String session = fx.watchedSession(onC);
    await("the drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String droneId = fx.store.listDrones(ada.user().id()).get(0).id();
    Cluster probe = hub.join("probe");
    await("the drone leased to A", () -> probe.locate(droneId).isPresent());
    String turn = onC.submit(session, "hello");
    assertThat(orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    List<ObjectNode> sent = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      sent.add(token(turn, i));
      onA.emit(Protocol.RESPONSE, List.of(sent.get(i)));
    }
    await("the first 50 tokens on C's page",
        () -> onC.seqs(turn, Protocol.RESPONSE).size() == 50);

    AtomicReference<Connection> onB = new AtomicReference<>();
    lookupsOfC.race(droneId, () -> { // in C's sweep, between its look-up and its end
      onB.set(drone(1, turn));
      assertThat(resumes.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("node B took the turn over (leased the drone, claimed the turn)").isEqualTo(turn);
    });
    nodes.servers().get(0).close(); // node A goes: its lease of the drone is given up
    // C's raced sweep is over once C looks again (B holds the drone) or the turn ended
    await("node C's sweep raced by B's takeover", () -> lookupsOfC.lookupsAfterRace.get() > 0
        || fx.store.findTurn(turn).orElseThrow().status() != TurnStatus.PROCESSING);
    assertThat(lookupsOfC.failure.get()).as("the takeover in the race").isNull();

    assertThat(fx.store.findTurn(turn).map(ChatTurn::status)).as("the turn in the store")
        .contains(TurnStatus.PROCESSING);
    assertThat(probe.locate(droneId).map(Cluster.Lease::nodeId)).contains("b");
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).as("ends told to C's page")
        .isZero();

    // the turn goes on at B: the drone sends it again from the start, then the rest, then its end
    Connection drone = onB.get();
    drone.emit(Protocol.STREAM_REPLAY, Protocol.args(
        new ResumePayloads.StreamReplay(turn, 0, true)));
    for (ObjectNode e : sent) {
      drone.emit(Protocol.RESPONSE, List.of(e));
    }
    for (int i = 50; i < 100; i++) {
      drone.emit(Protocol.RESPONSE, List.of(token(turn, i)));
    }
    drone.emit(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
        turn, 100, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")));

    JsonNode end = onC.completion(turn);
    assertThat(end.path("status").asText()).isEqualTo("finished");
    await("the end stored", () -> fx.store.findTurn(turn).map(ChatTurn::status).orElseThrow()
        == TurnStatus.FINISHED);
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
    assertThat(onC.seqs(turn, Protocol.RESPONSE)).hasSize(100).doesNotHaveDuplicates();
  }

  /**
   * The cluster lost its fencing counter (Redis restarted empty): node C reads a last fence
   * below the one the orphan holds in the store. No node holds the drone, so the refusal is not
   * a takeover: C ends the turn with the store's fence, and its page is told, once.
   */
  @Test
  void anOrphanIsEndedAfterTheClusterLostItsFencingCounter() throws Exception {
    Nodes nodes = startNodes(hub, (id, b) -> id.equals("c")
        ? b.droneGracePeriod(GRACE_ON_C).ackTimeout(Duration.ofSeconds(5))
        : b.droneGracePeriod(Duration.ofMinutes(10)).ackTimeout(Duration.ofSeconds(5)),
        (id, c) -> id.equals("c") ? new ForwardingCluster(c) {
          @Override
          public long lastFence() {
            return 0; // as read from a Redis restarted without its data
          }
        } : c, "a", "c");
    transports = nodes.transports();
    ada = fx.person("ada");
    Connection onA = drone(0, null);
    Page onC = page(1);
    String session = fx.watchedSession(onC);
    await("the drone", () -> !fx.store.listDrones(ada.user().id()).isEmpty());
    String turn = onC.submit(session, "hello");
    assertThat(orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    onA.emit(Protocol.RESPONSE, List.of(token(turn, 0)));
    await("a block stored with A's fence", () -> !fx.store.findTurn(turn).orElseThrow()
        .blocks().isEmpty());
    nodes.servers().get(0).close(); // node A goes, and its drone with it

    assertThat(onC.completion(turn).path("status").asText()).isEqualTo("interrupted");
    assertThat(fx.store.findTurn(turn).map(ChatTurn::status)).contains(TurnStatus.INTERRUPTED);
    assertThat(onC.count(turn, Protocol.WORK_ORDER_COMPLETE)).isEqualTo(1);
  }

  /** A raw drone of ada (workspace ws-1) on node {@code node}, running {@code activeTurn}. */
  private Connection drone(int node, String activeTurn) {
    TransportClient raw = transports.get(node).client();
    fx.closeables.add(raw);
    return RuntimeFixture.rawDrone(raw, ada, activeTurn, orders, resumes);
  }

  private Page page(int node) throws InterruptedException {
    Page p = new Page(transports.get(node).client(), ada.pageToken());
    fx.closeables.add(p);
    return p.connected();
  }

  private static ObjectNode token(String turn, int seq) {
    return GadgetJson.mapper().createObjectNode().put("turnId", turn).put("seq", seq)
        .put("data", "t" + seq + " ");
  }

  /**
   * Node C's cluster node, whose look-ups of one drone on C's timer thread (its orphan sweeps)
   * stage the race: the first that answers "no holder" moves C's clock past the grace period,
   * so that C's next sweep ends the turn; that sweep's look-up, which answers "no holder" too,
   * runs the takeover before it returns. Every other call goes to the hub as it is.
   */
  private final class RacedLookups extends ForwardingCluster {
    final AtomicInteger lookupsAfterRace = new AtomicInteger();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile String droneId;
    private volatile ThrowingRunnable takeover;
    private int unheld;
    private boolean raced;

    RacedLookups(Cluster real) {
      super(real);
    }

    void race(String droneId, ThrowingRunnable takeover) {
      this.takeover = takeover;
      this.droneId = droneId;
    }

    @Override
    public Optional<Lease> locate(String drone) {
      Optional<Lease> held = super.locate(drone);
      if (!drone.equals(droneId) || !Thread.currentThread().getName()
          .equals("gadget-server-timer")) {
        return held;
      }
      if (raced) {
        lookupsAfterRace.incrementAndGet();
      } else if (held.isEmpty() && ++unheld == 1) {
        clockOfC.advance(GRACE_ON_C.multipliedBy(2));
      } else if (held.isEmpty()) {
        raced = true;
        try {
          takeover.run();
        } catch (Throwable e) {
          failure.set(e);
        }
      }
      return held;
    }
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  /** The system clock, ahead by what {@link #advance} added. */
  private static final class AheadClock extends Clock {
    private final AtomicLong aheadMillis = new AtomicLong();

    void advance(Duration d) {
      aheadMillis.addAndGet(d.toMillis());
    }

    @Override
    public Instant instant() {
      return Instant.now().plusMillis(aheadMillis.get());
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this; // the server reads instants only
    }
  }
}
