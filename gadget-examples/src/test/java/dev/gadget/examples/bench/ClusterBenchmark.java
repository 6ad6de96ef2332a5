package dev.gadget.examples.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.cluster.redis.RedisCluster;
import dev.gadget.cluster.redis.TestRedis;
import dev.gadget.core.server.GadgetServer;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.examples.bench.LiveRun.Result;
import dev.gadget.transport.ws.WebSocketTransportServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Issue 32's benchmark (docs/BENCHMARKS-CLUSTER.md, "Several nodes"): LiveBenchmark's load against 1, 2
 * and 3 Gadget server nodes on one real {@code redis-server}, each drone on one node and its
 * page on the next (so with 2 or 3 nodes every event crosses nodes, and every prompt is mailed
 * to the drone's node), against today's single node without Redis and against the same
 * topology of stock socket.io 4.8.1 relays with {@code @socket.io/redis-streams-adapter}
 * (gadget-transport-ws/src/test/node/cluster-relay.js, installed from the committed lock
 * file). Prints events/s to pages, the servers' CPU per event, chunk latency, the Redis
 * commands per event (from {@code INFO commandstats} before and after the measured window), and
 * a verdict for each target. A program, not a test: run it with
 * {@code ./mvnw -B -q -pl gadget-examples -am test-compile -Pcluster-benchmark
 * [-Dcluster.args="--rounds 1"]}; LiveBenchmark's options ({@code --rounds --seconds --warmup
 * --only}).
 *
 * <p>The Gadget nodes run in this JVM (each its own transport, port and {@link RedisCluster},
 * on one shared {@link InMemoryChatStore}), so their CPU time is this JVM's; each Node relay is
 * a process of its own, their CPU time summed from /proc. Redis's own CPU is not counted in
 * either.
 */
public final class ClusterBenchmark {
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final int TURNS = 100;
  private static final double PACED = 21_000;
  private static final byte[] PEER_KEY = new byte[32];

  static {
    new java.security.SecureRandom().nextBytes(PEER_KEY);
  }

  private ClusterBenchmark() {}

  public static void main(String[] args) throws Exception {
    LiveBenchmark.Options o = LiveBenchmark.Options.parse(args);
    System.out.printf(Locale.ROOT, "Java %s, %d CPUs, load average %.1f; %d rounds of %d s "
        + "(after %d s warm-up), %d concurrent turns%n", System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(), java.lang.management.ManagementFactory
            .getOperatingSystemMXBean().getSystemLoadAverage(), o.rounds(), o.seconds(),
        o.warmUp(), TURNS);
    Path relay = LiveBenchmark.nodeScript("cluster-relay.js");
    Map<String, List<Result>> runs = new LinkedHashMap<>();
    try (TestRedis redis = new TestRedis()) {
      System.out.println("warm-up (not counted)");
      gadget("warm-up", 2, redis, 0, o);
      for (int round = 1; round <= o.rounds(); round++) {
        System.out.printf("round %d of %d%n", round, o.rounds());
        add(runs, o, "single", () -> gadget("Gadget, one node (no Redis)", 0, redis, 0, o));
        for (int nodes = 1; nodes <= 3; nodes++) {
          int n = nodes;
          add(runs, o, "gadget" + n, () -> gadget("Gadget, " + n + " node(s) on Redis", n, redis,
              0, o));
          add(runs, o, "node" + n, () -> node("Node socket.io + redis-streams-adapter, " + n,
              relay, n, redis, 0, o));
        }
        add(runs, o, "single-paced", () -> gadget("Gadget, one node (no Redis), paced", 0,
            redis, PACED, o));
        add(runs, o, "gadget3-paced", () -> gadget("Gadget, 3 nodes on Redis, paced", 3, redis,
            PACED, o));
        add(runs, o, "gadget3-local-paced", () -> gadget("Gadget, 3 nodes, pages local, paced",
            -3, redis, PACED, o));
        add(runs, o, "gadget3-redis-paced", () -> gadget("Gadget, 3 nodes, Redis only, paced",
            3, redis, PACED, o, false));
        add(runs, o, "node3-paced", () -> node("Node socket.io + adapter, 3, paced", relay, 3,
            redis, PACED, o));
      }
    }
    Map<String, Result> median = new LinkedHashMap<>();
    runs.forEach((k, list) -> median.put(k, LiveBenchmark.median(list)));
    System.out.println();
    System.out.println(header());
    median.forEach((k, r) -> System.out.println(row(k, r)));
    System.out.println();
    verdicts(median, runs);
  }

  /**
   * Gadget with {@code nodes} nodes on Redis, or (0) today's single node without a cluster; a
   * new store, and a key prefix of its own in Redis, per run. A negative count is that many
   * nodes with each page on its drone's node: the same cluster and load, no event crossing.
   */
  private static Result gadget(String system, int count, TestRedis redis, double rate,
      LiveBenchmark.Options o) throws Exception {
    return gadget(system, count, redis, rate, o, true);
  }

  /**
   * {@code peers}: the nodes push events to each other ahead of Redis ({@code
   * RedisCluster.Builder#peers}, as {@code --cluster-peer}); else through Redis only.
   */
  private static Result gadget(String system, int count, TestRedis redis, double rate,
      LiveBenchmark.Options o, boolean peers) throws Exception {
    int nodes = Math.abs(count);
    String prefix = "bench" + RUNS.incrementAndGet() + ":";
    List<GadgetServer> servers = new ArrayList<>();
    List<RedisCluster> clusters = new ArrayList<>();
    try (ChatStore store = new InMemoryChatStore()) {
      int[] ports = new int[Math.max(1, nodes)];
      for (int k = 0; k < ports.length; k++) {
        WebSocketTransportServer transport = WebSocketTransportServer.builder().port(0).build();
        GadgetServer.Builder b = GadgetServer.builder().store(store).transport(transport)
            .provider(LiveRun.PROVIDER);
        if (nodes > 0) {
          RedisCluster.Builder cb = RedisCluster.builder().uri(redis.uri()).nodeId("bench-" + k)
              .prefix(prefix);
          if (peers) {
            cb.peers(new InetSocketAddress("127.0.0.1", 0), PEER_KEY);
          }
          RedisCluster cluster = cb.build();
          clusters.add(cluster);
          b.cluster(cluster);
        }
        GadgetServer server = b.build();
        servers.add(server);
        server.start();
        ports[k] = transport.port();
      }
      ArrayNode slots = spread(LiveRun.slots(store, TURNS, false), ports, count > 0 ? 1 : 0);
      RedisCommands commands = new RedisCommands(redis.uri());
      Result r = LiveRun.load("http://127.0.0.1:" + ports[0], slots, rate, o.warmUp(),
          o.seconds(), LiveRun::processCpuNanos, commands::count).result(system, TURNS);
      System.out.println("  Redis commands in the window: " + commands.sinceLastButOne());
      if (peers && nodes > 1) {
        System.out.println("  events taken from pushes between nodes (whole run): "
            + clusters.stream().mapToLong(RedisCluster::pushedEvents).sum());
      }
      return r;
    } finally {
      servers.forEach(GadgetServer::close);
      clusters.forEach(RedisCluster::close);
    }
  }

  /** {@code nodes} stock socket.io relays on Redis, each a Node process of its own. */
  private static Result node(String system, Path relay, int nodes, TestRedis redis, double rate,
      LiveBenchmark.Options o) throws Exception {
    List<Process> relays = new ArrayList<>();
    try {
      int[] ports = new int[nodes];
      for (int k = 0; k < nodes; k++) {
        Process p = new ProcessBuilder("node", relay.toString(), redis.uri())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        relays.add(p);
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(),
            StandardCharsets.UTF_8)).readLine();
        if (line == null) {
          throw new IllegalStateException("cluster-relay.js ended before it listened (exit "
              + p.waitFor() + ")");
        }
        ports[k] = RawLoad.JSON.readTree(line).get("port").asInt();
      }
      ArrayNode slots = spread(LiveRun.plainSlots(TURNS), ports, 1);
      RedisCommands commands = new RedisCommands(redis.uri());
      Result r = LiveRun.load("http://127.0.0.1:" + ports[0], slots, rate, o.warmUp(),
          o.seconds(), () -> relays.stream().mapToLong(p -> LiveRun.procCpuNanos(p.pid())).sum(),
          commands::count).result(system, TURNS);
      System.out.println("  Redis commands in the window: " + commands.sinceLastButOne());
      return r;
    } finally {
      for (Process p : relays) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Slot i's drone on node i mod n, its page {@code shift} nodes on: with n > 1 and a shift of
   * 1, every event crosses nodes; with 0, none does.
   */
  private static ArrayNode spread(ArrayNode slots, int[] ports, int shift) {
    for (int i = 0; i < slots.size(); i++) {
      ((ObjectNode) slots.get(i)).put("dronePort", ports[i % ports.length])
          .put("pagePort", ports[(i + shift) % ports.length]);
    }
    return slots;
  }

  private static void add(Map<String, List<Result>> runs, LiveBenchmark.Options o, String key,
      Callable<Result> run) throws Exception {
    if (!LiveBenchmark.selected(o.only(), key)) {
      return;
    }
    Result r = run.call();
    System.out.println("  " + row(key, r) + (r.errors() > 0 ? "  errors: " + r.errors() : ""));
    runs.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
  }

  /** Redis commands per event: the run's "writes per turn" counted Redis commands. */
  static double redisPerEvent(Result r) {
    return r.writesPerTurn() / RawTurn.EVENTS;
  }

  private static String header() {
    return String.format(Locale.ROOT, "%-20s %-44s %12s %10s %9s %9s %12s", "key", "system",
        "events/s", "CPU µs/ev", "p50 ms", "p99 ms", "Redis cmd/ev");
  }

  private static String row(String key, Result r) {
    return String.format(Locale.ROOT, "%-20s %-44s %12.0f %10.1f %9.2f %9.2f %12.3f", key,
        r.system(), r.eventsPerSecond(), r.cpuMicrosPerEvent(), r.p50Micros() / 1e3,
        r.p99Micros() / 1e3, redisPerEvent(r));
  }

  private static void verdicts(Map<String, Result> m, Map<String, List<Result>> runs) {
    for (int n = 2; n <= 3; n++) {
      Result g = m.get("gadget" + n);
      Result node = m.get("node" + n);
      if (g != null && node != null) {
        double ratio = g.eventsPerSecond() / node.eventsPerSecond();
        Verdicts.verdict("cross-node relay >= 3x the Node cluster, " + n + " nodes", ratio >= 3,
            String.format(Locale.ROOT, "%.2fx (%,.0f vs %,.0f events/s)", ratio,
                g.eventsPerSecond(), node.eventsPerSecond()));
      }
    }
    Result single = m.get("single");
    for (int n = 1; n <= 3; n++) {
      Result g = m.get("gadget" + n);
      if (g != null && single != null) {
        System.out.printf(Locale.ROOT, "INFO %d node(s) on Redis vs one node without: %.2fx "
            + "(%,.0f vs %,.0f events/s)%n", n, g.eventsPerSecond() / single.eventsPerSecond(),
            g.eventsPerSecond(), single.eventsPerSecond());
      }
    }
    addedP99(runs.get("gadget3-paced"), runs.get("single-paced"), "one node without Redis");
    addedP99(runs.get("gadget3-paced"), runs.get("gadget3-local-paced"),
        "the same 3 nodes with each page on its drone's node");
    addedP99(runs.get("gadget3-redis-paced"), runs.get("single-paced"),
        "one node without Redis, with the events through Redis only (no peers)");
    for (String key : m.keySet()) {
      if (key.startsWith("gadget") && !key.contains("local")) {
        // the owner appends at most one XADD an event (one per feed per batch; a PEXPIRE once a
        // minute a feed), and each other node reads at most once an event
        int nodes = key.charAt("gadget".length()) - '0';
        double perEvent = redisPerEvent(m.get(key));
        Verdicts.verdict("Redis commands per event <= 1 + (nodes - 1) (" + key + ")",
            perEvent <= nodes, String.format(Locale.ROOT, "%.3f, bound %d", perEvent, nodes));
      }
    }
  }

  /**
   * The 3-node paced run's p99 minus a baseline's, round by round (the runs of one round follow
   * each other, so they share the machine's state), against the 5 ms target: the median of the
   * rounds' differences, each round's listed.
   */
  private static void addedP99(List<Result> three, List<Result> base, String baseName) {
    if (three == null || base == null || three.size() != base.size()) {
      return;
    }
    double[] added = new double[three.size()];
    StringBuilder each = new StringBuilder();
    for (int i = 0; i < added.length; i++) {
      added[i] = (three.get(i).p99Micros() - base.get(i).p99Micros()) / 1e3;
      each.append(String.format(Locale.ROOT, "%s%.2f - %.2f", i == 0 ? "" : ", ",
          three.get(i).p99Micros() / 1e3, base.get(i).p99Micros() / 1e3));
    }
    double[] sorted = added.clone();
    java.util.Arrays.sort(sorted);
    double median = sorted[sorted.length / 2];
    Verdicts.verdict("added p99 chunk latency across nodes < 5 ms at 21,000 events/s, against "
        + baseName, median < 5, String.format(Locale.ROOT, "median %.2f ms over %d rounds "
        + "(p99 across 3 nodes - the baseline's, ms: %s)", median, added.length, each));
  }
}
