package dev.gadget.examples.bench;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.store.JournaledChatStore;
import dev.gadget.examples.bench.LiveRun.Result;
import dev.gadget.store.mongo.MongoChatStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live path measured whole, as issue 22 asks (not a test): drones stream turns, the server
 * aggregates them, stores the blocks and forwards every event to the watching pages. The load
 * ({@link RawLoad}) runs in a process of its own; the server's CPU time is this JVM's (Gadget)
 * or the Node process's (the stock socket.io relay, src/test/node/relay.js of
 * gadget-transport-ws). Each configuration runs {@code rounds} times, interleaved with the
 * others; the median round is printed. Then the transport's 2,000,000-round-trip stress run and
 * its 10,000-idle-connection CPU run. Prints a table and each target with its verdict.
 *
 * <pre>
 * ./mvnw -B -q -pl gadget-examples -am test-compile -Plive-benchmark [-Dlive.args="--quick"]
 * </pre>
 *
 * Options: {@code --rounds N} (3), {@code --seconds S} (5, measured per round, after
 * {@code --warmup W}, 3), {@code --quick} (no stress and idle runs), {@code --dir DIR} (where
 * the journaled store writes, default target/live-benchmark: a real disk, as a server has),
 * {@code --only KEYS} (those configurations only: keys such as "journal@100" or "node-paced",
 * comma-separated; "journal*" for every key starting so).
 */
public final class LiveBenchmark {
  private static final AtomicInteger DATABASES = new AtomicInteger();
  /** Runs only the configurations whose key starts with this ({@code --only}), or all. */
  private static String only;

  private LiveBenchmark() {}

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    only = o.only;
    Files.createDirectories(o.dir);
    System.out.printf(Locale.ROOT, "Java %s, %d CPUs, load average %.1f; %d rounds of %d s "
        + "(after %d s warm-up); journal on %s (%s)%n", System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(), java.lang.management.ManagementFactory
            .getOperatingSystemMXBean().getSystemLoadAverage(), o.rounds, o.seconds, o.warmUp,
        o.dir, Files.getFileStore(o.dir).type());
    MongoServer mongo = new MongoServer(new MemoryBackend());
    mongo.bind("127.0.0.1", 0);
    String mongoUri = "mongodb://127.0.0.1:" + mongo.getLocalAddress().getPort();
    Path relay = relayScript();
    Map<String, List<Result>> runs = new LinkedHashMap<>();
    try (ChatStore memoryHistory = History.fill(new InMemoryChatStore());
        ChatStore journalHistory = History.fill(JournaledChatStore.open(
            History.fresh(o.dir.resolve("history"))));
        ChatStore mongoHistory = History.fill(mongo(mongoUri))) {
      // the JIT's warm-up, not measured: the first run in a fresh JVM is slower than the rest
      System.out.println("warm-up (not counted)");
      gadget("warm-up", new InMemoryChatStore(), 100, 0, o);
      for (int round = 1; round <= o.rounds; round++) {
        System.out.printf("round %d of %d%n", round, o.rounds);
        for (int turns : new int[] {100, 1, 1000}) {
          String n = "@" + turns;
          if (turns == 100) {
            add(runs, "in-memory" + n, () -> gadget("InMemoryChatStore",
                new InMemoryChatStore(), turns, 0, o));
            add(runs, "mongo" + n, () -> gadget("MongoChatStore, mongo-java-server",
                mongo(mongoUri), turns, 0, o));
            add(runs, "in-memory-history" + n, () -> gadgetKeep(
                "InMemoryChatStore, 10,000 turns stored", memoryHistory, turns, 0, o));
            add(runs, "journal-history" + n, () -> gadgetKeep(
                "embedded default, 10,000 turns stored", journalHistory, turns, 0, o));
            add(runs, "mongo-history" + n, () -> gadgetKeep(
                "MongoChatStore, 10,000 turns stored", mongoHistory, turns, 0, o));
            add(runs, "in-memory-tools" + n, () -> gadget("InMemoryChatStore, 3 tool calls",
                new InMemoryChatStore(), turns, 0, o, true));
            add(runs, "journal-tools" + n, () -> gadget("embedded default, 3 tool calls",
                JournaledChatStore.open(History.fresh(o.dir.resolve("journal"))), turns, 0, o,
                true));
          }
          add(runs, "journal" + n, () -> gadget("embedded default (JournaledChatStore)",
              JournaledChatStore.open(History.fresh(o.dir.resolve("journal"))), turns, 0, o));
          add(runs, "node" + n, () -> LiveRun.node(relay, turns, 0, o.warmUp, o.seconds));
          add(runs, "raw" + n, () -> LiveRun.raw(turns, 0, o.warmUp, o.seconds));
        }
        add(runs, "journal-paced", () -> gadget("embedded default, 21,000 events/s",
            JournaledChatStore.open(History.fresh(o.dir.resolve("journal"))), 100, 21_000, o));
        add(runs, "node-paced", () -> LiveRun.node(relay, 100, 21_000, o.warmUp, o.seconds));
      }
    } finally {
      mongo.shutdownNow();
    }
    Map<String, Result> median = new LinkedHashMap<>();
    runs.forEach((k, list) -> median.put(k, median(list)));
    System.out.println();
    LiveRun.header().forEach(System.out::println);
    median.values().forEach(r -> System.out.println(LiveRun.row(r)));
    System.out.println();
    Verdicts.print(median);
    if (!o.quick) {
      TransportRuns.stress();
      TransportRuns.idle();
    }
  }

  private static ChatStore mongo(String uri) {
    return MongoChatStore.builder().connectionString(uri)
        .database("live" + DATABASES.incrementAndGet()).build();
  }

  /** A run on a new store, closed after. */
  private static Result gadget(String name, ChatStore store, int turns, double rate, Options o)
      throws Exception {
    return gadget(name, store, turns, rate, o, false);
  }

  /** A run on a new store, closed after; {@code tools}: turns with tool calls. */
  private static Result gadget(String name, ChatStore store, int turns, double rate, Options o,
      boolean tools) throws Exception {
    try (store) {
      return LiveRun.gadget(name, store, turns, rate, o.warmUp, o.seconds, tools);
    }
  }

  private static Result gadgetKeep(String name, ChatStore store, int turns, double rate,
      Options o) throws Exception {
    return LiveRun.gadget(name, store, turns, rate, o.warmUp, o.seconds);
  }

  private static void add(Map<String, List<Result>> runs, String key, Callable<Result> run)
      throws Exception {
    if (!selected(only, key)) {
      return;
    }
    Result r = run.call();
    System.out.println("  " + LiveRun.row(r) + (r.errors() > 0 ? "  errors: " + r.errors() : ""));
    runs.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
  }

  /** Whether {@code --only} ({@code only}, null for all) selects the configuration {@code key}. */
  static boolean selected(String only, String key) {
    return only == null || java.util.Arrays.stream(only.split(",")).anyMatch(k -> k.equals(key)
        || k.endsWith("*") && key.startsWith(k.substring(0, k.length() - 1)));
  }

  static Result median(List<Result> results) {
    List<Result> sorted = new ArrayList<>(results);
    sorted.sort(Comparator.comparingDouble(Result::eventsPerSecond));
    return sorted.get(sorted.size() / 2);
  }

  /** relay.js, from the module's directory or (exec:java from the reactor) the root. */
  private static Path relayScript() {
    return nodeScript("relay.js");
  }

  /**
   * A script of gadget-transport-ws/src/test/node (where npm ci installs socket.io from the
   * committed lock file), from the module's directory or (exec:java from the reactor) the root.
   */
  static Path nodeScript(String name) {
    for (String dir : new String[] {"../gadget-transport-ws", "gadget-transport-ws"}) {
      Path p = Path.of(dir, "src/test/node", name);
      if (Files.exists(p)) {
        if (!Files.isDirectory(p.resolveSibling("node_modules/socket.io"))) {
          throw new IllegalStateException("socket.io is not installed next to " + p + ": build "
              + "gadget-transport-ws's tests first (the command above, without -DskipTests, "
              + "runs npm ci there)");
        }
        return p.toAbsolutePath();
      }
    }
    throw new IllegalStateException("cannot find gadget-transport-ws/src/test/node/" + name);
  }

  /** The command line. */
  record Options(int rounds, int seconds, int warmUp, boolean quick, Path dir, String only) {
    static Options parse(String[] args) {
      int rounds = 3;
      int seconds = 5;
      int warmUp = 3;
      boolean quick = false;
      Path dir = Path.of("target/live-benchmark");
      String only = null;
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--rounds" -> rounds = Integer.parseInt(args[++i]);
          case "--seconds" -> seconds = Integer.parseInt(args[++i]);
          case "--warmup" -> warmUp = Integer.parseInt(args[++i]);
          case "--quick" -> quick = true;
          case "--dir" -> dir = Path.of(args[++i]);
          case "--only" -> only = args[++i];
          default -> throw new IllegalArgumentException("unknown option " + args[i]
              + "; known: --rounds N --seconds S --warmup W --quick --dir DIR --only KEY");
        }
      }
      return new Options(rounds, seconds, warmUp, quick, dir.toAbsolutePath(), only);
    }
  }
}
