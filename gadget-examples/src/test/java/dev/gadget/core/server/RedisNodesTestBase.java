package dev.gadget.core.server;

import static dev.gadget.core.server.RuntimeFixture.await;
import static org.assertj.core.api.Assertions.assertThat;


import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.cluster.redis.RedisCluster;
import dev.gadget.cluster.redis.TestRedis;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.DroneRegistration;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.protocol.Payloads;
import dev.gadget.core.protocol.Protocol;
import dev.gadget.core.server.RuntimeFixture.Page;
import dev.gadget.core.server.RuntimeFixture.Person;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.ClusterException;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.InMemoryTransport;
import dev.gadget.core.transport.TransportClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What the in-JVM tests of servers on a real redis-server share: {@code n} servers on one store,
 * each with its own transport and its own {@link RedisCluster} node, raw drones of ada (one
 * workspace per node) that take every work order, and pages.
 */
abstract class RedisNodesTestBase extends RuntimeTestBase {
  TestRedis redis;
  final List<InMemoryTransport> transports = new ArrayList<>();
  final BlockingQueue<String> orders = new LinkedBlockingQueue<>();
  /** Each node's own cluster node, as built (before {@link #cluster} wraps it). */
  final List<RedisCluster> redisNodes = new ArrayList<>();
  Person ada;

  void start(int nodes) throws Exception {
    fx = new RuntimeFixture(tmp);
    redis = new TestRedis();
    fx.closeables.add(redis::close);
    for (int i = 0; i < nodes; i++) {
      InMemoryTransport t = transport(i);
      transports.add(t);
      RedisCluster cluster = RedisCluster.builder().uri(redis.uri()).nodeId("n" + i).build();
      fx.closeables.add(cluster);
      redisNodes.add(cluster);
      GadgetServer s = settings(i, GadgetServer.builder().store(fx.store).transport(t.server())
          .provider(RuntimeFixture.PROVIDER).cluster(cluster(i, cluster))
          .droneGracePeriod(Duration.ofSeconds(5)).ackTimeout(Duration.ofSeconds(5))).build();
      s.start();
      fx.closeables.add(s);
    }
    ada = fx.person("ada");
  }

  /** A transport whose clients do not open a dropped socket again (a drone that went away). */
  static InMemoryTransport noReconnect() {
    return new InMemoryTransport(Duration.ofHours(1), Duration.ofHours(1), 1_000);
  }

  /** {@code store}, with the turns ended through it (fenced or not) added to {@code ends}. */
  static ChatStore endsRecorded(ChatStore store, java.util.Queue<String> ends) {
    return (ChatStore) java.lang.reflect.Proxy.newProxyInstance(ChatStore.class.getClassLoader(),
        new Class<?>[] {ChatStore.class}, (proxy, method, args) -> {
          try {
            return method.invoke(store, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          } finally {
            if (method.getName().equals("finalizeTurn")) {
              ends.add((String) args[0]);
            }
          }
        });
  }

  /** Node {@code node}'s transport (a test may give one node other reconnect delays). */
  InMemoryTransport transport(int node) {
    return new InMemoryTransport();
  }

  /** The cluster node {@code node} is built with: its own {@link RedisCluster} node. */
  dev.gadget.core.spi.Cluster cluster(int node, RedisCluster redisNode) {
    return redisNode;
  }

  /** Node {@code node}'s server settings beyond the shared ones. */
  GadgetServer.Builder settings(int node, GadgetServer.Builder builder) {
    return builder;
  }

  /** A raw drone of ada on node {@code node}, in a workspace of its own. */
  Connection drone(int node) {
    return rawDrone(node, "ws-" + node, null, new TransportClient.ClientListener() {},
        c -> c.on(Protocol.PROCESS_WORK_ORDER, (args, ack) -> {
          orders.add(args.get(0).get("workOrder").get("chatTurn").get("_id").asText());
          ack.send(Protocol.args(new Payloads.WorkOrderAck(true, null)));
        }));
  }

  /**
   * A raw drone connection of ada on node {@code node} in {@code workspace}, saying it runs
   * {@code activeTurn} (or none), with the handlers {@code setup} registers before it connects.
   */
  Connection rawDrone(int node, String workspace, String activeTurn,
      TransportClient.ClientListener listener, java.util.function.Consumer<Connection> setup) {
    TransportClient raw = transports.get(node).client();
    fx.closeables.add(raw);
    ObjectNode auth = GadgetJson.mapper().createObjectNode().put("token", ada.droneToken())
        .put("workspaceId", workspace).put("hostname", "h" + node)
        .put("workspaceDir", "/nowhere");
    if (activeTurn != null) {
      auth.put("activeTurnId", activeTurn);
    }
    return raw.connect(Protocol.DRONE_NAMESPACE, () -> auth, listener, setup);
  }

  Page page(int node) throws InterruptedException {
    Page p = new Page(transports.get(node).client(), ada.pageToken());
    fx.closeables.add(p);
    return p.connected();
  }

  static void end(Connection drone, String turn) throws Exception {
    drone.emitWithAck(Protocol.WORK_ORDER_COMPLETE, Protocol.args(new Payloads.WorkOrderComplete(
            turn, 0, TurnStatus.FINISHED, TurnStats.EMPTY, null, "done")), RuntimeFixture.WAIT)
        .get(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The drone streams response tokens {@code from} to {@code to} (exclusive): "t<i> ". */
  static void tokens(Connection drone, String turn, int from, int to) {
    for (int i = from; i < to; i++) {
      ObjectNode e = GadgetJson.mapper().createObjectNode().put("turnId", turn).put("seq", i)
          .put("data", "t" + i + " ");
      drone.emit(Protocol.RESPONSE, List.of(e));
    }
  }

  /** The text of tokens 0 to {@code to} (exclusive). */
  static String expected(int to) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < to; i++) {
      sb.append("t").append(i).append(' ');
    }
    return sb.toString();
  }

  /** 0 to {@code to} (exclusive). */
  static List<Long> range(int to) {
    List<Long> out = new ArrayList<>();
    for (long i = 0; i < to; i++) {
      out.add(i);
    }
    return out;
  }

  /**
   * A turn prompted on {@code page} in a new chat it watches, its work order taken from
   * {@code orders}, and its first {@code n} tokens streamed by {@code drone} and stored.
   */
  String streamedTurn(Page page, BlockingQueue<String> orders, Connection drone, int n)
      throws Exception {
    String session = fx.watchedSession(page);
    String turn = page.submit(session, "hello");
    assertThat(orders.poll(RuntimeFixture.WAIT.toMillis(), TimeUnit.MILLISECONDS))
        .isEqualTo(turn);
    tokens(drone, turn, 0, n);
    await("the first " + n + " tokens stored", () -> storedText(turn).equals(expected(n)));
    return turn;
  }

  /** The turn's status in the store. */
  TurnStatus stored(String turn) {
    return fx.store.findTurn(turn).map(ChatTurn::status).orElseThrow();
  }

  /** The stored text of a turn of one responding block (else its blocks, to say what differs). */
  String storedText(String turn) {
    List<TurnBlock> blocks = fx.store.findTurn(turn).orElseThrow().blocks();
    return blocks.size() == 1 && blocks.get(0) instanceof TurnBlock.Responding r ? r.content()
        : blocks.toString();
  }

  /**
   * Waits until ada has {@code n} drones stored and each is leased by its node: a prompt on any
   * node finds them only then (the lease is taken just after the drone is stored).
   */
  void awaitDrones(int n) {
    await(n + " drones stored and leased", () -> {
      List<DroneRegistration> drones = fx.store.listDrones(ada.user().id());
      return drones.size() == n && drones.stream().allMatch(d -> leased(d.id()));
    });
  }

  private boolean leased(String droneId) {
    try {
      return redisNodes.get(0).locate(droneId).isPresent();
    } catch (ClusterException e) {
      return false; // Redis away: not known to be leased
    }
  }
}
