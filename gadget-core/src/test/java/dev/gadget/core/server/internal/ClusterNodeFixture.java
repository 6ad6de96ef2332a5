package dev.gadget.core.server.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.server.ServerListener;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;

/** A test's in-process cluster and timer, and the node it joins, closed after each test. */
abstract class ClusterNodeFixture {
  final InProcessCluster hub = new InProcessCluster();
  final ServerTimer timer = new ServerTimer();
  final WatcherRooms rooms = new WatcherRooms();
  final DroneRouter router = new DroneRouter();
  ClusterNode node;

  /** A server's settings on {@code store}, every timeout 30 s. */
  static ServerSettings settings(ChatStore store) {
    return new ServerSettings(store, Clock.systemUTC(), s -> null, Duration.ofSeconds(30),
        Duration.ofSeconds(30), Duration.ofSeconds(30), Duration.ofSeconds(30),
        new ServerListener() {}, null, null, null);
  }

  /** The live turns of a server with {@code settings}, on this fixture's timer and rooms. */
  LiveTurns liveTurns(ServerSettings settings) {
    return new LiveTurns(settings, timer, rooms, router);
  }

  /** Joins {@code cluster} as {@link #node}, with {@code turns}. */
  void join(ServerSettings settings, Cluster cluster, LiveTurns turns) {
    node = ClusterNode.join(settings, cluster, router, turns, rooms, timer);
  }

  /**
   * Starts {@code work} on a thread of its own and returns once it has ended or waits for a lock
   * (at most 10 s): what a node's other thread does in the middle of a call a test stages.
   */
  static Thread runUntilBlocked(Runnable work) {
    Thread t = new Thread(work);
    t.start();
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    while (t.isAlive() && t.getState() != Thread.State.BLOCKED && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    return t;
  }

  /** Drone {@code id} of u1 (workspace w1), its socket open on this node until closed. */
  static ConnectedDrone connectedDrone(String id) {
    ConnectedDrone d = new ConnectedDrone(id, "u1", "w1");
    d.connection = new Connection() {
      private volatile boolean open = true;

      @Override
      public String id() {
        return "socket-of-" + id;
      }

      @Override
      public String namespace() {
        return "/drone";
      }

      @Override
      public void emit(String event, List<JsonNode> args) {}

      @Override
      public CompletableFuture<List<JsonNode>> emitWithAck(String event, List<JsonNode> args,
          Duration timeout) {
        return new CompletableFuture<>();
      }

      @Override
      public void on(String event, EventHandler handler) {}

      @Override
      public boolean isConnected() {
        return open;
      }

      @Override
      public void disconnect() {
        open = false;
      }
    };
    return d;
  }

  @AfterEach
  void closeNode() {
    if (node != null) {
      node.close();
    }
    timer.close();
    hub.close();
  }
}
