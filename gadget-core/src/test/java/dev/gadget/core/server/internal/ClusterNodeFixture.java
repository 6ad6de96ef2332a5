package dev.gadget.core.server.internal;

import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.server.ServerListener;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.spi.Cluster;
import java.time.Clock;
import java.time.Duration;
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

  @AfterEach
  void closeNode() {
    if (node != null) {
      node.close();
    }
    timer.close();
    hub.close();
  }
}
