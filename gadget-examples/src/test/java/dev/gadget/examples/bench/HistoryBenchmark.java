package dev.gadget.examples.bench;

import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.ToolCall;
import dev.gadget.core.model.TurnBlock;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.model.User;
import dev.gadget.core.store.JournaledChatStore;
import dev.gadget.examples.bench.LiveRun.Result;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * The embedded default with a long history, as issue 37 asks (not a test): fills one store
 * directory with 10,000, then 100,000, then 300,000 finished turns of about 10 KB (13 blocks, 3
 * of them tool calls; 10 turns to a chat, 10 chats to a user) from 32 writers, and at each size
 * drops the directory's files from the OS's cache and starts a fresh JVM ({@link Probe}) that
 * opens it and prints the time to open (wall clock, the opening thread's CPU time and the whole
 * JVM's, with its JIT and GC threads), the heap in use after a full GC, the time to read one of
 * the oldest chats (its 10 turns) and to list a user's chats. Then it relays live turns with
 * tool calls on that store, as {@link LiveBenchmark} does, beside a run on an empty store.
 *
 * <pre>
 * ./mvnw -B -q -pl gadget-examples -am test-compile -Phistory-benchmark [-Dhistory.args="..."]
 * </pre>
 *
 * Options: {@code --sizes 10000,100000,300000}, {@code --dir DIR} (default
 * target/history-benchmark, emptied first), {@code --seconds S} (5) and {@code --warmup W} (3)
 * of each relay run, {@code --no-relay}.
 */
public final class HistoryBenchmark {
  private static final Instant T0 = Instant.parse("2025-11-01T09:00:00Z");
  private static final int TURNS_PER_CHAT = 10;
  private static final int CHATS_PER_USER = 10;

  private HistoryBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> a = Arrays.asList(args);
    int[] sizes = Arrays.stream(option(a, "--sizes", "10000,100000,300000").split(","))
        .mapToInt(Integer::parseInt).toArray();
    Path dir = Path.of(option(a, "--dir", "target/history-benchmark")).toAbsolutePath();
    int seconds = Integer.parseInt(option(a, "--seconds", "5"));
    int warmUp = Integer.parseInt(option(a, "--warmup", "3"));
    boolean relay = !a.contains("--no-relay");
    Path store = Files.createDirectories(History.fresh(dir.resolve("store")));
    System.out.printf(Locale.ROOT, "Java %s, %d CPUs, load average %.1f, store on %s (%s)%n",
        System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), store,
        Files.getFileStore(store).type());
    Result empty = null;
    if (relay) {
      System.out.println("warm-up relay run (not counted)");
      relay("warm-up", History.fresh(dir.resolve("empty")), warmUp, seconds);
      empty = relay("empty store", History.fresh(dir.resolve("empty")), warmUp, seconds);
    }
    List<String> rows = new ArrayList<>();
    List<ChatSession> chats = new ArrayList<>();
    int stored = 0;
    for (int size : sizes) {
      long started = System.nanoTime();
      try (JournaledChatStore s = JournaledChatStore.open(store)) {
        stored = fill(s, chats, stored, size);
      }
      double fillSeconds = (System.nanoTime() - started) / 1e9;
      long bytes = bytes(store);
      System.out.printf(Locale.ROOT, "stored %,d turns (%.1f GB on disk) in %.0f s%n", stored,
          bytes / 1e9, fillSeconds);
      String probe = probe(store, chats);
      String relayed = "-";
      if (relay) {
        Result r = relay("history of " + size, store, warmUp, seconds);
        relayed = String.format(Locale.ROOT, "%,.0f (%.2fx) %.1f", r.eventsPerSecond(),
            r.eventsPerSecond() / empty.eventsPerSecond(), r.writesPerTurn());
      }
      rows.add(String.format(Locale.ROOT, "%,9d %8.1f %s %s", size, bytes / 1e9, probe,
          relayed));
    }
    Result again = relay ? relay("empty store, again", History.fresh(dir.resolve("empty")),
        warmUp, seconds) : null;
    System.out.println();
    System.out.printf("%9s %8s %8s %8s %8s %8s %10s %10s %10s %s%n", "turns", "disk GB",
        "open ms", "thr cpu", "jvm cpu", "heap MB", "read ms", "read2 ms", "list ms",
        "relay events/s (x empty) writes/turn");
    rows.forEach(System.out::println);
    if (empty != null) {
      System.out.printf(Locale.ROOT, "empty store: %,.0f events/s, %.1f writes/turn; again "
          + "after the history runs: %,.0f events/s%n", empty.eventsPerSecond(),
          empty.writesPerTurn(), again.eventsPerSecond());
    }
  }

  /** Adds finished turns up to {@code size}; returns how many are stored. */
  private static int fill(JournaledChatStore store, List<ChatSession> chats, int from, int size)
      throws Exception {
    int newChats = (size - from) / TURNS_PER_CHAT;
    List<ChatSession> added = new ArrayList<>();
    for (int u = 0; u < newChats / CHATS_PER_USER; u++) {
      User user = new User(Ids.next(), "h" + Ids.next(), "History", T0);
      store.createUser(user);
      Project project = new Project(Ids.next(), user.id(), "old", "old", "/old.git", T0);
      store.createProject(project);
      for (int c = 0; c < CHATS_PER_USER; c++) {
        ChatSession chat = new ChatSession(Ids.next(), user.id(), project.id(), "old", null, T0);
        store.createSession(chat);
        added.add(chat);
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(32);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (ChatSession chat : added) {
        done.add(pool.submit(() -> {
          for (int n = 0; n < TURNS_PER_CHAT; n++) {
            store.createTurn(turn(chat, n));
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    chats.addAll(added);
    return from + added.size() * TURNS_PER_CHAT;
  }

  /** A finished turn of about 10 KB: 5 thinking, 5 responding and 3 tool blocks. */
  static ChatTurn turn(ChatSession chat, int n) {
    List<TurnBlock> blocks = new ArrayList<>();
    List<ToolCall> calls = new ArrayList<>();
    int seq = 0;
    for (int i = 0; i < 5; i++) {
      blocks.add(new TurnBlock.Thinking(seq++, T0, "weighing the next step ".repeat(16)));
      blocks.add(new TurnBlock.Responding(seq++, T0, "here is what changed and why. ".repeat(
          16)));
      if (i < 3) {
        ToolCall call = new ToolCall("call-" + i, "read_file", "{\"path\":\"src/Main.java\"}",
            "class Main { void run() {} }\n".repeat(14));
        calls.add(call);
        blocks.add(new TurnBlock.Tool(seq++, T0, call));
      }
    }
    return new ChatTurn(Ids.next(), chat.id(), chat.userId(), n, TurnStatus.FINISHED,
        "an older prompt " + n, "build", blocks, calls, new TurnStats(900, 300, 0, 3, 4, 2000),
        T0, T0, null, null);
  }

  /** Drops the store's files from the OS's cache, then opens it in a fresh JVM. */
  private static String probe(Path store, List<ChatSession> chats) throws Exception {
    List<String> files;
    try (Stream<Path> s = Files.list(store)) {
      files = s.filter(Files::isRegularFile).map(Path::toString).toList();
    }
    for (String f : files) {
      new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    }
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin",
        "java").toString(), "-cp", LiveRun.classPath(), Probe.class.getName(),
        store.toString(), chats.get(0).userId()));
    for (int i = 0; i < 20; i++) {
      cmd.add(chats.get(i * 7).id()); // among the oldest
    }
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String result = null;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith("RESULT ")) {
          result = line.substring(7);
        } else {
          System.out.println("  probe: " + line);
        }
      }
    }
    if (p.waitFor() != 0 || result == null) {
      throw new IllegalStateException("the probe failed");
    }
    return result;
  }

  private static Result relay(String name, Path dir, int warmUp, int seconds) throws Exception {
    try (JournaledChatStore s = JournaledChatStore.open(dir)) {
      Result r = LiveRun.gadget("embedded default, " + name, s, 100, 0, warmUp, seconds, true);
      System.out.println("  " + LiveRun.row(r));
      return r;
    }
  }

  private static long bytes(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.mapToLong(p -> p.toFile().length()).sum();
    }
  }

  private static String option(List<String> args, String name, String fallback) {
    int i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : fallback;
  }

  /** Opens the store in a fresh JVM and times it; prints one RESULT line. */
  public static final class Probe {
    private Probe() {}

    public static void main(String[] args) throws Exception {
      com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
          ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      long thread0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      try (JournaledChatStore s = JournaledChatStore.open(Path.of(args[0]))) {
        double open = ms(t0);
        double openCpu = (os.getProcessCpuTime() - cpu0) / 1e6;
        double openThread = (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime()
            - thread0) / 1e6;
        for (int i = 0; i < 3; i++) {
          System.gc();
        }
        double heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed()
            / 1048576.0;
        t0 = System.nanoTime();
        int turns = s.listTurns(args[2]).size();
        double first = ms(t0);
        double[] reads = new double[args.length - 3];
        for (int i = 3; i < args.length; i++) {
          t0 = System.nanoTime();
          turns += s.listTurns(args[i]).size();
          reads[i - 3] = ms(t0);
        }
        Arrays.sort(reads);
        t0 = System.nanoTime();
        int chats = s.listSessions(args[1], null).size();
        double list = ms(t0);
        if (turns != TURNS_PER_CHAT * (args.length - 2) || chats != CHATS_PER_USER) {
          throw new IllegalStateException("read " + turns + " turns and " + chats + " chats");
        }
        System.out.printf(Locale.ROOT, "RESULT %8.0f %8.0f %8.0f %8.0f %10.2f %10.2f %10.3f%n",
            open, openThread, openCpu, heap, first, reads[reads.length / 2], list);
      }
    }

    private static double ms(long since) {
      return (System.nanoTime() - since) / 1e6;
    }
  }
}
