package dev.gadget.core.server.internal;

import dev.gadget.core.cluster.InProcessCluster;
import org.junit.jupiter.api.AfterEach;

/** A test's in-process cluster and timer, and the node it joins, closed after each test. */
abstract class ClusterNodeFixture {
  final InProcessCluster hub = new InProcessCluster();
  final ServerTimer timer = new ServerTimer();
  ClusterNode node;

  @AfterEach
  void closeNode() {
    if (node != null) {
      node.close();
    }
    timer.close();
    hub.close();
  }
}
