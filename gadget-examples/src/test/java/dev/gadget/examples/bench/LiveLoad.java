package dev.gadget.examples.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.EventHandler;
import dev.gadget.core.transport.TransportClient;
import dev.gadget.transport.ws.WebSocketTransportClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * LiveBenchmark's load, in a process of its own so that the server's CPU time is the server's:
 * one drone and one page per concurrent turn, over Gadget's Socket.IO client. Each page watches
 * its session and submits a prompt; its drone streams the turn ({@link Turn#EVENTS} events of
 * 1-8 characters, thinking then response), then ends it; the page submits the next prompt when
 * it sees the end, in a new chat every {@link Turn#TURNS_PER_SESSION} turns. Unpaced, a drone
 * keeps {@link #WINDOW} events ahead of what its page received; paced, the drones together send {@code rate} events a second. Reads one setup line from stdin
 * (JSON: url, turns, per slot its user, tokens and session), prints "measuring" and "done" as the
 * measured window starts and ends, then one result line (JSON), and exits.
 */
public final class LiveLoad {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Events a drone may send ahead of what its page received, unpaced. */
  static final int WINDOW = 64;

  private LiveLoad() {}

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    JsonNode setup = JSON.readTree(in.readLine());
    URI uri = URI.create(setup.get("url").asText());
    double rate = setup.path("rate").asDouble(0);
    int warmUp = setup.get("warmUpSeconds").asInt();
    int seconds = setup.get("seconds").asInt();
    Latencies latencies = new Latencies();
    List<Turn> slots = new ArrayList<>();
    List<TransportClient> clients = new ArrayList<>();
    CountDownLatch ready = new CountDownLatch(setup.get("slots").size());
    for (JsonNode slot : setup.get("slots")) {
      Turn t = new Turn(slot.get("project").asText(), slot.get("session").asText(), latencies,
          rate <= 0);
      slots.add(t);
      clients.add(drone(uri, slot, t));
      clients.add(page(uri, slot, t, ready));
    }
    if (!ready.await(120, TimeUnit.SECONDS)) {
      throw new IllegalStateException("pages not ready: " + ready.getCount() + " left");
    }
    ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
    if (rate > 0) {
      double perSlotPerTick = rate / slots.size() / 1000;
      pacer.scheduleAtFixedRate(() -> slots.forEach(t -> t.tick(perSlotPerTick)), 1, 1,
          TimeUnit.MILLISECONDS);
    }
    slots.forEach(Turn::submitNext);
    // The measured window opens after the warm-up and closes `seconds` later, on the pacer.
    long[] from = new long[3]; // events, turns, nanoTime at the window's start
    CountDownLatch measured = new CountDownLatch(1);
    pacer.schedule(() -> {
      from[0] = Turn.RECEIVED.get();
      from[1] = Turn.COMPLETED.get();
      latencies.reset();
      from[2] = System.nanoTime();
      System.out.println("measuring");
      System.out.flush();
    }, warmUp, TimeUnit.SECONDS);
    pacer.schedule(() -> {
      long events = Turn.RECEIVED.get() - from[0];
      long turns = Turn.COMPLETED.get() - from[1];
      double elapsed = (System.nanoTime() - from[2]) / 1e9;
      System.out.println("done");
      ObjectNode result = JSON.createObjectNode();
      result.put("events", events).put("seconds", elapsed).put("turns", turns)
          .put("p50Micros", latencies.percentile(0.50))
          .put("p99Micros", latencies.percentile(0.99))
          .put("maxMicros", latencies.max()).put("errors", Turn.ERRORS.get());
      System.out.println(result);
      System.out.flush();
      measured.countDown();
    }, warmUp + seconds, TimeUnit.SECONDS);
    if (!measured.await(warmUp + seconds + 60L, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the measured window did not close");
    }
    pacer.shutdownNow();
    Runtime.getRuntime().halt(0); // thousands of sockets: no need to close them one by one
  }

  private static TransportClient client(URI uri) {
    return WebSocketTransportClient.builder().uri(uri).reconnection(false).build();
  }

  private static TransportClient drone(URI uri, JsonNode slot, Turn t) {
    TransportClient client = client(uri);
    ObjectNode auth = JSON.createObjectNode().put("token", slot.get("droneToken").asText())
        .put("user", slot.get("user").asText()).put("workspaceId", "bench-" + slot.get("user")
            .asText()).put("hostname", "bench").put("workspaceDir", "/bench");
    client.connect("/drone", () -> auth, new TransportClient.ClientListener() {}, c -> {
      t.drone = c;
      c.on("processWorkOrder", (args, ack) -> {
        ack.send(List.of(JSON.createObjectNode().put("accepted", true)));
        t.start(args.get(0).get("workOrder").get("chatTurn").get("_id").asText());
      });
    });
    return client;
  }

  private static TransportClient page(URI uri, JsonNode slot, Turn t, CountDownLatch ready) {
    TransportClient client = client(uri);
    ObjectNode auth = JSON.createObjectNode().put("token", slot.get("pageToken").asText())
        .put("user", slot.get("user").asText());
    client.connect("/", () -> auth, new TransportClient.ClientListener() {
      @Override
      public void onConnect(Connection c) {
        c.emitWithAck("watchSession", List.of(JSON.createObjectNode().put("sessionId",
            t.session)), Duration.ofSeconds(60)).thenRun(ready::countDown);
      }
    }, c -> {
      t.page = c;
      c.on("thinking", EventHandler.nonBlocking((args, ack) ->
          t.received(args.get(0).get("seq").asLong())));
      c.on("response", EventHandler.nonBlocking((args, ack) ->
          t.received(args.get(0).get("seq").asLong())));
      c.on("workOrderComplete", (args, ack) -> t.ended());
    });
    return client;
  }

  /** Round-trip times from a drone's send to its page's receipt, in microsecond buckets. */
  static final class Latencies {
    private static final int BUCKETS = 2_000_000; // up to 2 s, then the last bucket
    private final java.util.concurrent.atomic.AtomicLongArray counts =
        new java.util.concurrent.atomic.AtomicLongArray(BUCKETS);
    private final AtomicLong max = new AtomicLong();

    void add(long nanos) {
      long micros = nanos / 1000;
      counts.incrementAndGet((int) Math.min(BUCKETS - 1, Math.max(0, micros)));
      max.accumulateAndGet(micros, Math::max);
    }

    void reset() {
      for (int i = 0; i < BUCKETS; i++) {
        counts.set(i, 0);
      }
      max.set(0);
    }

    long max() {
      return max.get();
    }

    long percentile(double p) {
      long total = 0;
      for (int i = 0; i < BUCKETS; i++) {
        total += counts.get(i);
      }
      long rank = (long) Math.ceil(total * p);
      long seen = 0;
      for (int i = 0; i < BUCKETS; i++) {
        seen += counts.get(i);
        if (seen >= rank && seen > 0) {
          return i;
        }
      }
      return 0;
    }
  }
}
