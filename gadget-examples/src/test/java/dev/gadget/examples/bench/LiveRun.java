package dev.gadget.examples.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.Ids;
import dev.gadget.core.model.ChatSession;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.Project;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.User;
import dev.gadget.core.server.GadgetServer;
import dev.gadget.core.spi.ChatStore;
import dev.gadget.core.store.Tokens;
import dev.gadget.transport.ws.WebSocketTransportServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/** One measured run of {@link LiveBenchmark}: a server (Gadget or Node), its load, the numbers. */
final class LiveRun {
  /** What a run measured. */
  record Result(String system, int turns, double eventsPerSecond, double cpuMicrosPerEvent,
      double writesPerTurn, double turnSeconds, long p50Micros, long p99Micros, long maxMicros,
      long errors, double loadCpuMicrosPerEvent) {}

  static final ProviderConfig PROVIDER =
      new ProviderConfig("ollama", "http://127.0.0.1:1", null, "bench-model", null);
  private static final Instant T0 = Instant.parse("2026-11-24T09:00:00Z");

  private LiveRun() {}

  /**
   * Runs {@code turns} concurrent turns against a Gadget server on {@code store} (which may
   * already hold a history); {@code rate} 0 for as fast as it goes.
   */
  static Result gadget(String system, ChatStore store, int turns, double rate, int warmUp,
      int seconds) throws Exception {
    return gadget(system, store, turns, rate, warmUp, seconds, false);
  }

  /**
   * The same, with {@code tools}: each turn streams its events in 10 thinking and responding
   * blocks with 3 tool calls between them, as an agent's turn does.
   */
  static Result gadget(String system, ChatStore store, int turns, double rate, int warmUp,
      int seconds, boolean tools) throws Exception {
    CountingStore counting = new CountingStore(store);
    WebSocketTransportServer transport = WebSocketTransportServer.builder().port(0).build();
    GadgetServer server = GadgetServer.builder().store(counting.store).transport(transport)
        .provider(PROVIDER).build();
    server.start();
    try {
      ArrayNode slots = slots(store, turns, tools);
      String url = "http://127.0.0.1:" + transport.port();
      Result r = load(url, slots, rate, warmUp, seconds, LiveRun::processCpuNanos,
          counting::total).result(system, turns);
      if (System.getProperty("live.writes") != null) {
        System.out.println("  store writes by call, whole run: " + counting.byCall());
      }
      return r;
    } finally {
      server.close();
    }
  }

  /**
   * One user per concurrent turn in {@code store}, with a project, a chat and a page's and a
   * drone's token: the load's slots.
   */
  static ArrayNode slots(ChatStore store, int turns, boolean tools) {
    ArrayNode slots = RawLoad.JSON.createArrayNode();
    Tokens tokens = new Tokens(store);
    for (int i = 0; i < turns; i++) {
      User u = new User(Ids.next(), "bench" + Ids.next(), "Bench", T0);
      store.createUser(u);
      Project p = new Project(Ids.next(), u.id(), "bench", "bench", "/bench.git", T0);
      store.createProject(p);
      ChatSession s = new ChatSession(Ids.next(), u.id(), p.id(), "bench", null, T0);
      store.createSession(s);
      slots.addObject().put("user", u.id()).put("project", p.id()).put("session", s.id())
          .put("pageToken", tokens.issue(u.id(), TokenKind.USER, "page").token())
          .put("droneToken", tokens.issue(u.id(), TokenKind.DRONE, "drone").token())
          .put("tools", tools);
    }
    return slots;
  }

  /** The same load against the stock socket.io relay in Node (no store). */
  static Result node(Path relayScript, int turns, double rate, int warmUp, int seconds)
      throws Exception {
    Process relay = new ProcessBuilder("node", relayScript.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(relay.getInputStream(),
          StandardCharsets.UTF_8));
      int port = RawLoad.JSON.readTree(out.readLine()).get("port").asInt();
      long pid = relay.pid();
      return load("http://127.0.0.1:" + port, plainSlots(turns), rate, warmUp, seconds,
          () -> procCpuNanos(pid), () -> -1).result("Node socket.io relay (no store)", turns);
    } finally {
      relay.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** The same load against {@link RawForwarder}, in this JVM. */
  static Result raw(int turns, double rate, int warmUp, int seconds) throws Exception {
    RawForwarder forwarder = new RawForwarder();
    int port = forwarder.startAndWait();
    try {
      return load("http://127.0.0.1:" + port, plainSlots(turns), rate, warmUp, seconds,
          LiveRun::processCpuNanos, () -> -1).result("raw Java-WebSocket forwarder", turns);
    } finally {
      try {
        forwarder.stop(1000);
      } catch (java.nio.channels.ClosedSelectorException e) {
        // Java-WebSocket's stop can close its selector before the connections it closes after
      }
    }
  }

  /**
   * What the load process printed, with the server's CPU time and the count {@code writes}
   * (store writes, or another counter such as Redis commands) over the measured window.
   */
  record Measured(JsonNode load, long cpuNanos, long writes) {
    Result result(String system, int turns) {
      long events = load.get("events").asLong();
      // turns' worth of events streamed in the window: a turn at 1,000 concurrent ones lasts
      // longer than the window, so whole turns ended in it would not say what a turn costs
      double done = (double) events / RawTurn.EVENTS;
      double seconds = load.get("seconds").asDouble();
      return new Result(system, turns, events / seconds, cpuNanos / 1e3 / Math.max(1, events),
          done == 0 || writes < 0 ? Double.NaN : writes / done, done == 0 ? Double.NaN
          : turns * seconds / done, load.get("p50Micros").asLong(),
          load.get("p99Micros").asLong(), load.get("maxMicros").asLong(),
          load.get("errors").asLong(), load.get("loadCpuMicrosPerEvent").asDouble());
    }
  }

  static Measured load(String url, ArrayNode slots, double rate, int warmUp,
      int seconds, LongSupplier cpu, LongSupplier writes) throws Exception {
    ObjectNode setup = RawLoad.JSON.createObjectNode().put("url", url).put("rate", rate)
        .put("warmUpSeconds", warmUp).put("seconds", seconds);
    setup.set("slots", slots);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process load = new ProcessBuilder(java, "-Xss512k", "-cp", classPath(),
        RawLoad.class.getName())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try (OutputStream in = load.getOutputStream()) {
      in.write((RawLoad.JSON.writeValueAsString(setup) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    BufferedReader out = new BufferedReader(new InputStreamReader(load.getInputStream(),
        StandardCharsets.UTF_8));
    long cpu0 = 0;
    long cpu1 = 0;
    long writes0 = 0;
    long writes1 = 0;
    String line;
    while ((line = out.readLine()) != null) {
      if (line.equals("measuring")) {
        cpu0 = cpu.getAsLong();
        writes0 = writes.getAsLong();
      } else if (line.equals("done")) {
        cpu1 = cpu.getAsLong();
        writes1 = writes.getAsLong();
      } else if (line.startsWith("{")) {
        load.waitFor(30, TimeUnit.SECONDS);
        return new Measured(RawLoad.JSON.readTree(line), cpu1 - cpu0,
            writes0 < 0 ? -1 : writes1 - writes0);
      }
    }
    throw new IOException("the load process ended without a result (exit "
        + load.waitFor() + ")");
  }

  /**
   * This program's class path: exec:java runs it in a class loader of its own, whose URLs
   * (the test class path) are not in {@code java.class.path}.
   */
  static String classPath() {
    List<String> entries = new ArrayList<>();
    for (ClassLoader l = LiveRun.class.getClassLoader(); l != null; l = l.getParent()) {
      if (l instanceof java.net.URLClassLoader u) {
        for (java.net.URL url : u.getURLs()) {
          try {
            entries.add(Path.of(url.toURI()).toString());
          } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
          }
        }
      }
    }
    entries.add(System.getProperty("java.class.path"));
    return String.join(java.io.File.pathSeparator, entries);
  }

  /**
   * Slots for a server without users or tokens (the Node relay, the forwarder): each names its
   * user, project and chat, and any token does.
   */
  static ArrayNode plainSlots(int turns) {
    ArrayNode slots = RawLoad.JSON.createArrayNode();
    for (int i = 0; i < turns; i++) {
      slots.addObject().put("user", "u" + i).put("project", "p" + i).put("session", "s" + i)
          .put("pageToken", "p").put("droneToken", "d");
    }
    return slots;
  }

  /** This JVM's CPU time, in nanoseconds. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** A process's user and system CPU time from /proc, in nanoseconds. */
  static long procCpuNanos(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
      return ticks * 10_000_000L; // USER_HZ is 100 on Linux
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the CPU time of " + pid, e);
    }
  }

  static String row(Result r) {
    return String.format(Locale.ROOT, "%-44s %6d %12.0f %10.1f %10.1f %10s %9s %9s",
        r.system(), r.turns(), r.eventsPerSecond(), r.cpuMicrosPerEvent(),
        r.loadCpuMicrosPerEvent(),
        Double.isNaN(r.writesPerTurn()) ? "-" : String.format(Locale.ROOT, "%.1f",
            r.writesPerTurn()), r.p50Micros() / 1000.0 + "", r.p99Micros() / 1000.0 + "");
  }

  static List<String> header() {
    List<String> h = new ArrayList<>();
    h.add(String.format(Locale.ROOT, "%-44s %6s %12s %10s %10s %10s %9s %9s", "system", "turns",
        "events/s", "CPU µs/ev", "load µs/ev", "writes/tn", "p50 ms", "p99 ms"));
    return h;
  }
}
