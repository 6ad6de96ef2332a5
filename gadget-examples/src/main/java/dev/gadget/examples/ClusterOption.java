package dev.gadget.examples;

import dev.gadget.cluster.redis.RedisCluster;
import dev.gadget.core.server.SecretKeys;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code server --cluster redis://HOST:PORT}: this server is a node of a cluster on that Redis,
 * beside the other nodes on the same MongoDB (docs/CLUSTER.md).
 */
final class ClusterOption {
  static final List<OptionSpec> OPTIONS = List.of(
      OptionSpec.value("cluster", "URI", "run as one node of a cluster on this Redis, e.g. "
          + "redis://127.0.0.1:6379 (needs --mongo: every node shares one store)"),
      OptionSpec.value("node-id", "ID", "this node's name in the cluster (default: host, "
          + "process id and a random suffix)"),
      OptionSpec.value("cluster-peer", "HOST:PORT", "push each turn's events straight to the "
          + "nodes whose pages follow it, ahead of Redis: listen here, an address the other "
          + "nodes reach (needs the same GADGET_SECRET_KEY on every node; default: off)"));
  /** What the nodes' peer key is derived for, from the secret key. */
  static final String PEER_KEY_PURPOSE = "gadget cluster peers v1";

  private ClusterOption() {}

  /** Checks {@code --cluster} and {@code --node-id}, before anything is opened. */
  static void check(Args args) {
    Optional<String> uri = args.get("cluster");
    if (uri.isEmpty()) {
      if (args.get("node-id").isPresent()) {
        throw new UsageException("--node-id names this node in a cluster: it goes with "
            + "--cluster");
      }
      if (args.get("cluster-peer").isPresent()) {
        throw new UsageException("--cluster-peer links this node to the others of a cluster: "
            + "it goes with --cluster");
      }
      return;
    }
    if (!Stores.isMongo(args)) {
      throw new UsageException("--cluster needs --mongo: the nodes of a cluster share one "
          + "store, and the embedded store belongs to one process");
    }
    if (!uri.get().startsWith("redis://") && !uri.get().startsWith("rediss://")) {
      throw new UsageException("--cluster takes a Redis URI, such as redis://127.0.0.1:6379");
    }
    if (!args.get("node-id").orElse("a").matches("[A-Za-z0-9._-]{1,100}")) {
      throw new UsageException("--node-id: letters, digits, '.', '_' and '-' only, at most "
          + "100");
    }
    args.get("cluster-peer").ifPresent(ClusterOption::peerAddress);
  }

  /** {@code --cluster-peer HOST:PORT}, checked: an address the other nodes can reach. */
  static InetSocketAddress peerAddress(String value) {
    int colon = value.lastIndexOf(':');
    int port;
    try {
      port = colon > 0 ? Integer.parseInt(value.substring(colon + 1)) : -1;
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65_535) {
      throw new UsageException("--cluster-peer takes HOST:PORT (a port from 1 to 65535), such "
          + "as 10.0.0.5:7100");
    }
    String host = value.substring(0, colon);
    if (host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") || host.isEmpty()) {
      throw new UsageException("--cluster-peer is announced to the other nodes: give an "
          + "address they can reach, not " + (host.isEmpty() ? "an empty host" : host));
    }
    return InetSocketAddress.createUnresolved(host, port);
  }

  /** The cluster the command line names, joined; empty without {@code --cluster}. */
  static Optional<Opened> open(Args args, SecretKeys keys) {
    check(args);
    Optional<String> uri = args.get("cluster");
    if (uri.isEmpty()) {
      return Optional.empty();
    }
    String nodeId = args.get("node-id").orElseGet(ClusterOption::defaultNodeId);
    try {
      RedisCluster.Builder b = RedisCluster.builder().uri(uri.get()).nodeId(nodeId);
      Optional<String> peer = args.get("cluster-peer");
      if (peer.isPresent()) {
        InetSocketAddress at = peerAddress(peer.get());
        b.peers(new InetSocketAddress(at.getHostString(), at.getPort()),
            keys.derive(PEER_KEY_PURPOSE));
      }
      Cluster cluster = b.build();
      return Optional.of(new Opened(cluster, "node " + nodeId + " on Redis "
          + uri.get().replaceAll("(?<=://)[^@/]*@", "***@")));
    } catch (ClusterException e) {
      throw new CommandException("cannot join the cluster: " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--cluster: " + e.getMessage());
    }
  }

  private static String defaultNodeId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9._-]", "-");
    } catch (UnknownHostException e) {
      host = "node";
    }
    return host + "-" + ProcessHandle.current().pid() + "-"
        + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
  }

  /** A joined cluster and how to name it in the banner. */
  record Opened(Cluster cluster, String description) {}
}
