package dev.gadget.core.server;

import dev.gadget.core.cluster.InProcessCluster;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.transport.InMemoryTransport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** What the runtime tests share: a temporary directory, and their fixture closed after each. */
abstract class RuntimeTestBase {
  @TempDir Path tmp;
  RuntimeFixture fx;

  @AfterEach
  void closeFixture() {
    if (fx != null) {
      fx.close();
    }
  }

  /** Servers of one in-process cluster, in the order of their ids, and their transports. */
  record Nodes(List<GadgetServer> servers, List<InMemoryTransport> transports) {}

  /**
   * A new fixture and a started server for each of {@code ids}, on the fixture's store, joined
   * to {@code hub}, each on an in-memory transport of its own; {@code settings} adds what the
   * test sets on every server. All are closed with the fixture.
   */
  Nodes startNodes(InProcessCluster hub, UnaryOperator<GadgetServer.Builder> settings,
      String... ids) throws Exception {
    return startNodes(hub, (id, b) -> settings.apply(b), (id, c) -> c, ids);
  }

  /**
   * As {@link #startNodes(InProcessCluster, UnaryOperator, String...)}, with each node's settings
   * and the cluster node it is built with (its view of {@code hub}, which a test may wrap) given
   * by the node's id.
   */
  Nodes startNodes(InProcessCluster hub,
      BiFunction<String, GadgetServer.Builder, GadgetServer.Builder> settings,
      BiFunction<String, Cluster, Cluster> clusters, String... ids) throws Exception {
    fx = new RuntimeFixture(tmp);
    fx.closeables.add(hub);
    List<GadgetServer> servers = new ArrayList<>();
    List<InMemoryTransport> transports = new ArrayList<>();
    for (String id : ids) {
      InMemoryTransport t = new InMemoryTransport();
      transports.add(t);
      GadgetServer s = settings.apply(id, GadgetServer.builder().store(fx.store)
          .transport(t.server()).provider(RuntimeFixture.PROVIDER)
          .cluster(clusters.apply(id, hub.join(id)))).build();
      s.start();
      servers.add(s);
      fx.closeables.add(s);
    }
    return new Nodes(servers, transports);
  }
}
