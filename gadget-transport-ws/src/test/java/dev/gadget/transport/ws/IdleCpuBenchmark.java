package dev.gadget.transport.ws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What holding idle connections costs the server: {@code count} Engine.IO clients (raw sockets
 * in a Node process, src/test/node/idle-clients.js, that join "/" and answer pings) against a
 * Gadget server (this JVM's CPU time) and against the stock socket.io server
 * (src/test/node/idle-server.js, its {@code /proc/<pid>/stat} times), both with the default
 * heartbeat (25 s ping interval), over {@code seconds}. Prints a table. Not a test: run it with
 * {@code ./mvnw -B -q -pl gadget-transport-ws -am test-compile -Ptransport-benchmark
 * -Dbenchmark=IdleCpuBenchmark -Dbenchmark.args="10000 60"} (needs {@code ulimit -n} above the
 * count).
 */
public final class IdleCpuBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The Node scripts, from the module's directory or (exec:java from the reactor) the root. */
  private static final Path NODE_DIR = Files.isDirectory(Path.of("src/test/node"))
      ? Path.of("src/test/node") : Path.of("gadget-transport-ws/src/test/node");

  private IdleCpuBenchmark() {}

  public static void main(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    double gadget = gadget(count, seconds);
    double node = node(count, seconds);
    System.out.printf("%d idle connections, %d s, default heartbeat (25 s)%n", count, seconds);
    System.out.printf("%-28s %8s%n", "server", "CPU");
    System.out.printf("%-28s %7.1f%%%n", "Gadget (Java-WebSocket)", gadget);
    System.out.printf("%-28s %7.1f%%%n", "socket.io 4.8 (Node)", node);
  }

  /** Percent of one core the Gadget server's JVM used while {@code count} clients idled. */
  private static double gadget(int count, int seconds) throws Exception {
    WebSocketTransportServer server = WebSocketTransportServer.builder().build();
    server.start(new StrandedFrameStressTest.EchoAcceptor());
    Process clients = clients(server.port(), count);
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (server.sessionCount() < count) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(server.sessionCount() + " of " + count + " joined");
        }
        TimeUnit.MILLISECONDS.sleep(100); // a benchmark's poll, not a test's
      }
      var os = (com.sun.management.OperatingSystemMXBean)
          ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      TimeUnit.SECONDS.sleep(seconds);
      double pct = 100.0 * (os.getProcessCpuTime() - cpu0) / (System.nanoTime() - t0);
      if (server.sessionCount() < count) {
        throw new IllegalStateException("only " + server.sessionCount() + " sessions lasted");
      }
      return pct;
    } finally {
      clients.destroy();
      server.close();
    }
  }

  /** Percent of one core the stock socket.io server used while {@code count} clients idled. */
  private static double node(int count, int seconds) throws Exception {
    Process server = new ProcessBuilder("node", "idle-server.js").directory(NODE_DIR.toFile())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
    int port = JSON.readTree(out.readLine()).get("port").asInt();
    Process clients = clients(port, count);
    try {
      long ticks0 = ticks(server.pid());
      long t0 = System.nanoTime();
      TimeUnit.SECONDS.sleep(seconds);
      long ticks = ticks(server.pid()) - ticks0;
      return 100.0 * ticks * 1e7 / (System.nanoTime() - t0); // 100 ticks a second
    } finally {
      clients.destroy();
      server.destroy();
    }
  }

  /** Starts the idle clients and returns once every one has joined. */
  private static Process clients(int port, int count) throws Exception {
    Process p = new ProcessBuilder("node", "idle-clients.js", String.valueOf(port),
        String.valueOf(count)).directory(NODE_DIR.toFile())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = out.readLine()) != null; ) {
      JsonNode event = JSON.readTree(line);
      if ("ready".equals(event.path("event").asText())) {
        Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "idle-clients-out");
        drain.setDaemon(true);
        drain.start();
        return p;
      }
      if ("error".equals(event.path("event").asText())) {
        System.err.println("idle clients: " + line);
      }
    }
    throw new IllegalStateException("the idle clients ended before they all joined");
  }

  /** utime + stime of a process, in clock ticks (100 a second on Linux). */
  private static long ticks(long pid) throws Exception {
    String stat = Files.readString(new File("/proc/" + pid + "/stat").toPath());
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
