package dev.gadget.store.mongo;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.store.JournaledChatStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Measures what the server's hot store calls cost with few and with many turns stored (not a
 * test), for the in-memory store, the journaled store (every write synced to disk) and
 * MongoChatStore on an in-process mongo-java-server (memory backend).
 *
 * <pre>
 * ./mvnw -B -q -pl gadget-store-mongo -am test-compile -Pstore-benchmark [-Dexec.args=DIR]
 * </pre>
 *
 * <p>The journaled store writes under {@code DIR} (default {@code target/store-benchmark}, on the
 * project's disk; {@code /tmp} may be a RAM disk, where a sync costs nothing). For each store and
 * each size (100 and 10,000 stored turns, 10 per session, 2 blocks each) it times, per call:
 * {@code appendBlock}, {@code finalizeTurn} and {@code setTurnDrone} on a new turn,
 * {@code listTurns} of a 10-turn session and {@code findSession} (400 times, after 200 untimed
 * rounds), and prints the median and the 99th percentile in microseconds. Then it times {@code appendBlock} from 1, 4 and 16 threads on
 * the journaled store, to show writers sharing syncs.
 */
public final class StoreBenchmark {
  private static final Instant T0 = Instant.parse("2026-04-29T19:30:00Z");
  private static final int SAMPLES = 400;
  private static final int WARM_UP = 200;

  private StoreBenchmark() {}

  /** Runs the benchmark. */
  public static void main(String[] args) throws Exception {
    Path root = Path.of(args.length > 0 ? args[0] : "target/store-benchmark").toAbsolutePath();
    Files.createDirectories(root);
    System.out.printf(Locale.ROOT, "Java %s, %d CPUs; journal on %s (%s)%n",
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), root,
        Files.getFileStore(root).type());
    System.out.printf(Locale.ROOT, "%-34s %7s  %-22s %-22s %-22s %-22s %-22s%n", "store",
        "turns", "appendBlock p50/p99", "finalizeTurn", "setTurnDrone", "listTurns (10)",
        "findSession");
    MongoServer server = new MongoServer(new MemoryBackend());
    server.bind("127.0.0.1", 0);
    String uri = "mongodb://127.0.0.1:" + server.getLocalAddress().getPort();
    try {
      for (int turns : new int[] {100, 10_000}) {
        run("in-memory", turns, InMemoryChatStore::new);
        Path dir = fresh(root.resolve("journal-" + turns));
        run("journaled (synced)", turns, () -> JournaledChatStore.open(dir));
        String db = "bench" + turns;
        run("MongoChatStore, mongo-java-server", turns, () -> MongoChatStore.builder()
            .connectionString(uri).database(db).build());
      }
      concurrency(fresh(root.resolve("journal-threads")));
    } finally {
      server.shutdownNow();
    }
  }

  private static void run(String name, int turns, Supplier<ChatStore> open) throws Exception {
    try (ChatStore store = open.get()) {
      List<ChatSession> sessions = fill(store, turns);
      ChatSession hot = sessions.get(sessions.size() / 2);
      long[] append = new long[SAMPLES];
      long[] finalize = new long[SAMPLES];
      long[] drone = new long[SAMPLES];
      long[] list = new long[SAMPLES];
      long[] find = new long[SAMPLES];
      ChatSession extra = session(store, hot.userId(), hot.projectId());
      for (int i = -WARM_UP; i < SAMPLES; i++) {
        ChatTurn t = ChatTurn.start(Ids.next(), extra.id(), extra.userId(), i + WARM_UP, "p",
            "build", T0);
        store.createTurn(t);
        long a = System.nanoTime();
        store.appendBlock(t.id(), new TurnBlock.Responding(0, T0, "reply " + i));
        long b = System.nanoTime();
        store.setTurnDrone(t.id(), "drone-1");
        long c = System.nanoTime();
        store.finalizeTurn(t.id(), TurnStatus.FINISHED, TurnStats.EMPTY, null, T0);
        long d = System.nanoTime();
        store.listTurns(hot.id());
        long e = System.nanoTime();
        store.findSession(hot.id());
        long f = System.nanoTime();
        if (i < 0) {
          continue;
        }
        append[i] = b - a;
        drone[i] = c - b;
        finalize[i] = d - c;
        list[i] = e - d;
        find[i] = f - e;
      }
      System.out.printf(Locale.ROOT, "%-34s %7d  %-22s %-22s %-22s %-22s %-22s%n", name, turns,
          stats(append), stats(finalize), stats(drone), stats(list), stats(find));
    }
  }

  /** {@code turns} finished turns, 10 per session, 10 sessions per user; returns the sessions. */
  private static List<ChatSession> fill(ChatStore store, int turns) throws Exception {
    List<ChatSession> sessions = new ArrayList<>();
    User user = null;
    Project project = null;
    for (int s = 0; s < turns / 10; s++) {
      if (s % 10 == 0) {
        user = new User(Ids.next(), "u" + Ids.next(), "U", T0);
        store.createUser(user);
        project = new Project(Ids.next(), user.id(), "p", "p", "/p.git", T0);
        store.createProject(project);
      }
      sessions.add(session(store, user.id(), project.id()));
    }
    // Many writers at once, so that the journaled store's group commit keeps filling fast.
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (ChatSession s : sessions) {
        done.add(pool.submit(() -> {
          for (int n = 0; n < 10; n++) {
            store.createTurn(new ChatTurn(Ids.next(), s.id(), s.userId(), n, TurnStatus.FINISHED,
                "prompt " + n, "build", List.of(new TurnBlock.Thinking(0, T0, "thinking"),
                new TurnBlock.Responding(1, T0, "a reply of a few words")), List.of(),
                TurnStats.EMPTY, T0, T0, null, null));
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    return sessions;
  }

  private static ChatSession session(ChatStore store, String userId, String projectId) {
    ChatSession s = new ChatSession(Ids.next(), userId, projectId, "s", null, T0);
    store.createSession(s);
    return s;
  }

  /** appendBlock from 1, 4 and 16 threads at once on the journaled store: calls per second. */
  private static void concurrency(Path dir) throws Exception {
    try (JournaledChatStore store = JournaledChatStore.open(dir)) {
      List<ChatSession> sessions = fill(store, 100);
      for (int threads : new int[] {1, 4, 16}) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        int perThread = 200;
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          ChatSession s = sessions.get(i % sessions.size());
          long seqInSession = 100L * threads + i;
          done.add(pool.submit(() -> {
            ChatTurn t = ChatTurn.start(Ids.next(), s.id(), s.userId(), seqInSession, "p",
                "build", T0);
            store.createTurn(t);
            for (int seq = 0; seq < perThread; seq++) {
              store.appendBlock(t.id(), new TurnBlock.Responding(seq, T0, "block " + seq));
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        System.out.printf(Locale.ROOT, "journaled appendBlock, %2d threads: %6.0f calls/s "
            + "(%.2f ms per call per thread)%n", threads, threads * perThread / seconds,
            seconds * 1000 / perThread);
      }
    }
  }

  private static String stats(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return String.format(Locale.ROOT, "%.0f / %.0f µs", sorted[sorted.length / 2] / 1e3,
        sorted[(int) (sorted.length * 0.99)] / 1e3);
  }

  private static Path fresh(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    return dir;
  }
}
