package dev.gadget.core.cluster;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterContract;
import org.junit.jupiter.api.AfterEach;

/** The in-process cluster passes the contract: the nodes of one test share one hub. */
class InProcessClusterTest extends ClusterContract {
  private final InProcessCluster hub = new InProcessCluster();

  @Override
  protected Cluster newNode(String nodeId) {
    return hub.join(nodeId);
  }

  @AfterEach
  void closeHub() {
    hub.close();
  }
}
