package dev.gadget.examples.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * LiveBenchmark's load, in a process of its own so that the server's CPU time is the server's,
 * and on one thread over non-blocking sockets so that it costs far less than the server it
 * drives: one drone and one page per concurrent turn ({@link RawTurn}), speaking Socket.IO
 * over {@link RawSocket}. Unpaced, a drone keeps {@link RawTurn#WINDOW} events ahead of what
 * its page received; paced, the drones together send {@code rate} events a second, their first
 * turns started one after another over one turn's length (the warm-up lasts at least that). Reads one
 * setup line from stdin (JSON: url, rate, warmUpSeconds, seconds, per slot its user, project,
 * session and tokens, and the ports of its drone's and page's nodes when they are not the url's),
 * prints "measuring" and "done" as the measured window starts and ends, then one result line
 * (JSON), and exits.
 */
public final class RawLoad {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Sockets that connect at once (the rest wait their turn): the server's backlog is finite. */
  private static final int CONNECTING = 64;

  private final Selector selector;
  private final double rate;
  private final List<RawSocket> dirty = new ArrayList<>();
  private final PriorityQueue<Timer> timers = new PriorityQueue<>();
  private final Histogram latencies = new Histogram();
  private long received;
  private long completed;
  private long errors;
  private int connecting;
  private int connectedCount;

  private record Timer(long at, long order, Runnable task) implements Comparable<Timer> {
    @Override
    public int compareTo(Timer o) {
      return at != o.at ? Long.compare(at, o.at) : Long.compare(order, o.order);
    }
  }

  private long timerOrder;

  private RawLoad(double rate) throws java.io.IOException {
    this.selector = Selector.open();
    this.rate = rate;
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    JsonNode setup = JSON.readTree(in.readLine());
    RawLoad load = new RawLoad(setup.path("rate").asDouble(0));
    load.run(URI.create(setup.get("url").asText()).getPort(), setup);
  }

  boolean paced() {
    return rate > 0;
  }

  /** A socket has bytes to send; they go at the end of this pass over the ready keys. */
  void dirty(RawSocket socket) {
    dirty.add(socket);
  }

  void later(long millis, Runnable task) {
    timers.add(new Timer(System.nanoTime() + millis * 1_000_000, timerOrder++, task));
  }

  void received(long nanos) {
    received++;
    latencies.add(nanos);
  }

  void completed() {
    completed++;
  }

  void error(String what) {
    errors++;
    System.err.println(what);
  }

  /** A drone registered or a page watches its chat: a socket is ready. */
  void connected() {
    connecting--;
    connectedCount++;
  }

  private void run(int port, JsonNode setup) throws Exception {
    List<RawTurn> slots = new ArrayList<>();
    ArrayDeque<RawSocket> waiting = new ArrayDeque<>();
    for (JsonNode slot : setup.get("slots")) {
      RawTurn t = new RawTurn(this, slot, port);
      slots.add(t);
      waiting.add(t.drone);
      waiting.add(t.page);
    }
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (connectedCount < 2 * slots.size()) {
      while (connecting < CONNECTING && !waiting.isEmpty()) {
        connecting++;
        waiting.poll().connect(selector);
      }
      pass(100);
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("sockets not ready: " + connectedCount + " of "
            + 2 * slots.size());
      }
    }
    int warmUp = setup.get("warmUpSeconds").asInt();
    if (paced()) {
      // Paced turns start spread over one turn's length, as users' prompts would, so that
      // turns do not all end and start again in the same millisecond; the warm-up covers it.
      double turnMillis = RawTurn.EVENTS * slots.size() / rate * 1000;
      for (int i = 0; i < slots.size(); i++) {
        RawTurn t = slots.get(i);
        later((long) (turnMillis * i / slots.size()), () -> t.submit(0));
      }
      warmUp = Math.max(warmUp, (int) Math.ceil(turnMillis / 1000) + 1);
    } else {
      slots.forEach(t -> t.submit(0));
    }
    long[] from = new long[4]; // events, turns, nanoTime and this process's CPU time at the start
    boolean[] done = {false};
    later(warmUp * 1000L, () -> {
      from[0] = received;
      from[1] = completed;
      latencies.reset();
      from[2] = System.nanoTime();
      from[3] = LiveRun.processCpuNanos();
      System.out.println("measuring");
      System.out.flush();
    });
    later((warmUp + setup.get("seconds").asInt()) * 1000L, () -> {
      double elapsed = (System.nanoTime() - from[2]) / 1e9;
      long cpu = LiveRun.processCpuNanos() - from[3];
      System.out.println("done");
      ObjectNode result = JSON.createObjectNode();
      result.put("events", received - from[0]).put("seconds", elapsed)
          .put("turns", completed - from[1])
          .put("p50Micros", latencies.percentile(0.50))
          .put("p99Micros", latencies.percentile(0.99))
          .put("maxMicros", latencies.max()).put("errors", errors)
          .put("loadCpuMicrosPerEvent", cpu / 1e3 / Math.max(1, received - from[0]));
      System.out.println(result);
      System.out.flush();
      done[0] = true;
    });
    double perSlotPerNano = rate / slots.size() / 1e9;
    long lastTick = System.nanoTime();
    while (!done[0]) {
      pass(paced() ? 1 : 50);
      if (paced()) {
        long now = System.nanoTime();
        if (now - lastTick >= 1_000_000) {
          double events = perSlotPerNano * (now - lastTick);
          lastTick = now;
          for (RawTurn t : slots) {
            t.tick(events);
          }
          flushDirty();
        }
      }
    }
    Runtime.getRuntime().halt(0); // thousands of sockets: no need to close them one by one
  }

  /** One pass: due timers, then every ready key, then what the pass queued goes out. */
  private void pass(long maxWaitMillis) throws Exception {
    long now = System.nanoTime();
    while (!timers.isEmpty() && timers.peek().at() <= now) {
      timers.poll().task().run();
    }
    long wait = timers.isEmpty() ? maxWaitMillis
        : Math.min(maxWaitMillis, Math.max(1, (timers.peek().at() - now) / 1_000_000));
    flushDirty();
    if (selector.select(wait) > 0) {
      for (SelectionKey key : selector.selectedKeys()) {
        ((RawSocket) key.attachment()).ready();
      }
      selector.selectedKeys().clear();
    }
    flushDirty();
  }

  private void flushDirty() {
    for (int i = 0; i < dirty.size(); i++) {
      dirty.get(i).flush();
    }
    dirty.clear();
  }

  /** Latencies in microsecond buckets, up to 2 s (then the last bucket); one thread only. */
  private static final class Histogram {
    private static final int BUCKETS = 2_000_000;
    private final long[] counts = new long[BUCKETS];
    private long total;
    private long max;

    void add(long nanos) {
      long micros = Math.max(0, nanos / 1000);
      counts[(int) Math.min(BUCKETS - 1, micros)]++;
      total++;
      max = Math.max(max, micros);
    }

    void reset() {
      java.util.Arrays.fill(counts, 0);
      total = 0;
      max = 0;
    }

    long max() {
      return max;
    }

    long percentile(double p) {
      long rank = (long) Math.ceil(total * p);
      long seen = 0;
      for (int i = 0; i < BUCKETS; i++) {
        seen += counts[i];
        if (seen >= rank && seen > 0) {
          return i;
        }
      }
      return 0;
    }
  }
}
