package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.Ids;
import dev.gadget.core.drone.GadgetDrone;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.ProviderConfig;
import dev.gadget.core.model.TokenKind;
import dev.gadget.core.model.User;
import dev.gadget.core.server.GadgetServer;
import dev.gadget.core.store.InMemoryChatStore;
import dev.gadget.core.store.Tokens;
import dev.gadget.core.transport.Connection;
import dev.gadget.core.transport.TransportClient;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's fuzz test: a real {@link GadgetServer} on a {@link WebSocketTransportServer}, a real
 * {@link GadgetDrone} and an innocent page (a {@link WebSocketTransportClient}) of one user, and
 * fuzzers on bare TCP sockets sending at least 100,000 mutated Engine.IO / Socket.IO frames
 * ({@link FuzzFrames}, fixed seeds) as a second user, with and without valid tokens. After every
 * batch the innocent page's turn completes; at the end the server still serves, its live heap
 * after GC is within 10 MB of where it started, and the log (captured as written) holds no stack
 * trace, no ERROR, and no more than one WARN per peer and kind.
 */
class HostilePeersFuzzTest {
  private static final ObjectMapper JSON = GadgetJson.mapper();
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final long SEED = 0x6AD6E7L;
  private static final int FUZZERS = 4;
  private static final int BATCHES = 10;
  private static final long FRAMES_PER_BATCH = 10_000;
  private static final int MAX_PAYLOAD = 100_000;
  private static final long HEAP_MARGIN = 10L * 1024 * 1024;
  private static final long BACKGROUND = 10;

  @TempDir Path tmp;
  private WebSocketTransportServer transport;
  private GadgetServer server;
  private GadgetDrone drone;
  private WebSocketTransportClient pageClient;
  private ExecutorService fuzzers;

  @AfterEach
  void stop() {
    if (fuzzers != null) {
      fuzzers.shutdownNow();
    }
    if (pageClient != null) {
      pageClient.close();
    }
    if (drone != null) {
      drone.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void mutatedFramesNeitherStopTheServerNorDisturbAnInnocentPage() throws Exception {
    InMemoryChatStore store = new InMemoryChatStore();
    Tokens tokens = new Tokens(store);
    User ada = new User(Ids.next(), "ada", "Ada", Instant.now());
    User mallory = new User(Ids.next(), "mallory", "Mallory", Instant.now());
    store.createUser(ada);
    store.createUser(mallory);
    transport = WebSocketTransportServer.builder().maxPayload(MAX_PAYLOAD).build();
    server = GadgetServer.builder()
        .store(store)
        .transport(transport)
        .provider(new ProviderConfig("scripted", "http://127.0.0.1:1", "sk-x", "m", null))
        .droneGracePeriod(Duration.ofSeconds(2))
        .ackTimeout(Duration.ofSeconds(5))
        .build();
    server.start();
    drone = GadgetDrone.builder()
        .transport(WebSocketTransportClient.builder().uri(transport.uri())
            .reconnectionDelay(Duration.ofMillis(100)).build())
        .token(tokens.issue(ada.id(), TokenKind.DRONE, "drone").token())
        .workspaceDir(tmp.resolve("ws"))
        .hostname("innocent")
        .llmClients(p -> ScriptedLlmClient.builder()
            .script(request -> ScriptedLlmClient.reply().thinking("Thinking it over.")
                .text("All fine here.").build())
            .build())
        .build();
    drone.start();
    await("the drone is registered", () -> store.listDrones(ada.id()).size() == 1
        && store.listDrones(ada.id()).get(0).status() == DroneStatus.AVAILABLE);
    Page page = new Page(tokens.issue(ada.id(), TokenKind.USER, "page").token());
    String malloryPage = tokens.issue(mallory.id(), TokenKind.USER, "page").token();
    String malloryDrone = tokens.issue(mallory.id(), TokenKind.DRONE, "drone").token();

    try (LogCapture log = LogCapture.start(HostilePeersFuzzTest::worthKeeping)) {
      // Warm up, then the heap to come back to.
      page.turn(store, ada);
      page.turn(store, ada);
      long heapBefore = liveHeap();

      fuzzers = Executors.newFixedThreadPool(FUZZERS);
      Stats stats = new Stats();
      long fuzzFrames = 0;
      long started = System.nanoTime();
      for (int batch = 0; batch < BATCHES; batch++) {
        // The server's count of frames read while only the fuzzers run, but for the innocent
        // page's and drone's pongs (a ping every 25 s): at most BACKGROUND of them.
        long before = transport.framesRead();
        long target = before + FRAMES_PER_BATCH + BACKGROUND;
        List<Future<?>> running = new ArrayList<>();
        for (int f = 0; f < FUZZERS; f++) {
          long seed = SEED + 1000L * batch + f;
          running.add(fuzzers.submit(() -> fuzz(new FuzzFrames(seed, MAX_PAYLOAD, malloryPage,
              malloryDrone), stats, () -> transport.framesRead() >= target)));
        }
        for (Future<?> r : running) {
          r.get(60, TimeUnit.SECONDS);
        }
        long read = transport.framesRead() - before;
        fuzzFrames += read - BACKGROUND;
        page.turn(store, ada);
        System.out.printf("fuzz batch %d: server read %d frames; innocent turn completed%n",
            batch, read);
      }
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

      // Still serving: a fresh connection joins and is answered, and the innocent page works.
      try (WireSocket fresh = WireSocket.open(transport.port())) {
        assertThat(fresh.readText()).startsWith("0{");
        fresh.text("40" + JSON.createObjectNode().put("token", malloryPage));
        assertThat(fresh.readText()).startsWith("40{\"sid\":");
      }
      page.turn(store, ada);
      await("every fuzz connection is closed", () -> transport.socketCount() == 2
          && transport.sessionCount() == 2,
          () -> "sockets " + transport.socketCount() + ", sessions " + transport.sessionCount());
      long heapAfter = liveHeapWithin(heapBefore + HEAP_MARGIN);

      System.out.printf("fuzz: %d frames read by the server from fuzzers (%d sent, %d mutated),"
              + " %d connections (%d with a mutated handshake) in %d s; %d failures to close%n",
          fuzzFrames, stats.sent.get(), stats.mutated.get(), stats.connections.get(),
          stats.handshakes.get(), seconds, stats.notClosed.get());
      System.out.printf("fuzz: live heap after GC %d KB before, %d KB after (%+d KB)%n",
          heapBefore / 1024, heapAfter / 1024, (heapAfter - heapBefore) / 1024);
      System.out.printf("fuzz: %d log lines; WARN: %s%n", log.total(), log.at("WARN", ""));

      assertThat(fuzzFrames).as("frames the server read from fuzzers").isGreaterThanOrEqualTo(100_000);
      assertThat(stats.mutated.get()).as("mutated frames sent").isGreaterThanOrEqualTo(100_000);
      assertThat(stats.notClosed.get()).as("connections the server never closed").isZero();
      assertThat(stats.errors).as("unexpected errors in the fuzzers").isEmpty();
      assertThat(heapAfter - heapBefore).as("live heap growth").isLessThan(HEAP_MARGIN);
      assertThat(log.stackTraceLines()).as("stack traces in the log").isEmpty();
      assertThat(log.at("ERROR", "")).as("ERROR lines").isEmpty();
      List<String> warnings = log.at("WARN", "");
      assertThat(warnings.stream().map(HostilePeersFuzzTest::kind).distinct().count())
          .as("one WARN per peer and kind: %s", warnings).isEqualTo(warnings.size());
      assertThat(kind("12:00:00.000 [t] WARN dev.gadget.transport.ws.internal.PeerLog - Invalid"
          + " UTF-8 from 127.0.0.1: closed session abc with 1007: text"))
          .isEqualTo(" WARN dev.gadget.transport.ws.internal.PeerLog - Invalid UTF-8 from 127.0.0.1");
    }
  }

  /** The log lines the test looks at: warnings, errors and anything of a stack trace. */
  private static boolean worthKeeping(String line) {
    return line.contains(" WARN ") || line.contains(" ERROR ")
        || LogCapture.STACK_LINE.matcher(line).matches() || line.contains("Exception");
  }

  /**
   * What makes a WARN line one kind: its logger and its message up to the first colon (for
   * PeerLog, "Invalid UTF-8 from 127.0.0.1"), without time, thread or session ids.
   */
  static String kind(String line) {
    String from = line.substring(line.indexOf(" WARN "));
    int message = from.indexOf(" - ");
    int colon = from.indexOf(':', message);
    return colon < 0 ? from : from.substring(0, colon);
  }

  /** What the fuzzers did, across threads. */
  private static final class Stats {
    final AtomicLong sent = new AtomicLong();
    final AtomicLong mutated = new AtomicLong();
    final AtomicLong connections = new AtomicLong();
    final AtomicLong handshakes = new AtomicLong();
    final AtomicLong notClosed = new AtomicLong();
    final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
  }

  /**
   * One fuzzer: connection after connection until {@code enough}: an upgrade (now and then a
   * mutated one), a CONNECT, a burst of softly mutated packets, often one hard mutation, then a
   * close frame and FIN; then it reads until the server closes (within 10 s, or it counts as a
   * connection the server never closed).
   */
  private void fuzz(FuzzFrames frames, Stats stats, BooleanSupplier enough) {
    int port = transport.port();
    while (!enough.getAsBoolean() && !Thread.currentThread().isInterrupted()) {
      stats.connections.incrementAndGet();
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(10_000);
        var out = socket.getOutputStream();
        if (frames.random().nextInt(50) == 0) {
          stats.handshakes.incrementAndGet();
          out.write(frames.mutatedHandshake(port));
          socket.shutdownOutput(); // nothing more: the server answers or gives up on it
        } else {
          out.write(WireSocket.upgradeRequest(port).getBytes(StandardCharsets.US_ASCII));
          try {
            if (frames.random().nextInt(10) != 0) {
              send(out, frames.connect(), false, stats);
            }
            for (int i = 5 + frames.random().nextInt(56); i > 0; i--) {
              for (FuzzFrames.Frame f : frames.soft()) {
                send(out, f.bytes(), f.mutated(), stats);
              }
            }
            if (frames.random().nextBoolean()) {
              FuzzFrames.Frame f = frames.hard();
              send(out, f.bytes(), f.mutated(), stats);
            }
            send(out, WireSocket.encode(0x88, new byte[] {0x03, (byte) 0xE8}, new byte[4]), false, stats);
          } catch (SocketException e) {
            // the server closed the connection on a frame it refused: fine
          }
        }
        if (!closedByServer(socket.getInputStream())) {
          stats.notClosed.incrementAndGet();
        }
      } catch (IOException e) {
        stats.errors.add(e.toString());
      }
    }
  }

  private static void send(java.io.OutputStream out, byte[] frame, boolean mutated, Stats stats)
      throws IOException {
    out.write(frame);
    stats.sent.incrementAndGet();
    if (mutated) {
      stats.mutated.incrementAndGet();
    }
  }

  private static boolean closedByServer(InputStream in) throws IOException {
    byte[] sink = new byte[16 * 1024];
    try {
      while (in.read(sink) >= 0) {
        // what the server answered
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true; // reset
    }
  }

  /** The innocent page: ada's project and session, watched; one turn at a time. */
  private final class Page {
    private final Connection c;
    private final String sessionId;
    private final BlockingQueue<JsonNode> completions = new LinkedBlockingQueue<>();

    Page(String token) throws Exception {
      pageClient = WebSocketTransportClient.builder().uri(transport.uri()).build();
      c = pageClient.connect("/", () -> JSON.createObjectNode().put("token", token),
          new TransportClient.ClientListener() {});
      c.on("workOrderComplete", (args, ack) -> completions.add(args.get(0)));
      String gitUrl = SampleRepository.create(tmp.resolve("origin.git"));
      JsonNode project = request("createProject", JSON.createObjectNode().put("name", "Sample")
          .put("slug", "sample").put("gitUrl", gitUrl)).get("project");
      sessionId = request("createSession", JSON.createObjectNode()
          .put("projectId", project.get("_id").asText())).get("session").get("_id").asText();
      request("watchSession", JSON.createObjectNode().put("sessionId", sessionId));
    }

    JsonNode request(String event, ObjectNode payload) throws Exception {
      JsonNode reply = c.emitWithAck(event, List.of(payload), WAIT)
          .get(WAIT.toMillis(), TimeUnit.MILLISECONDS).get(0);
      assertThat(reply.has("error")).as("%s answered %s", event, reply).isFalse();
      return reply;
    }

    /** Sends a prompt and waits until its turn has finished. */
    void turn(InMemoryChatStore store, User user) throws Exception {
      await("the innocent drone is available", () ->
          store.listDrones(user.id()).get(0).status() == DroneStatus.AVAILABLE);
      String turnId = request("submitPrompt", JSON.createObjectNode().put("sessionId", sessionId)
          .put("prompt", "How are things?")).get("turnId").asText();
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (true) {
        JsonNode done = completions.poll(Math.max(1, deadline - System.nanoTime()),
            TimeUnit.NANOSECONDS);
        if (done == null) {
          fail("the innocent turn %s did not complete within %s", turnId, WAIT);
        }
        if (done.get("turnId").asText().equals(turnId)) {
          assertThat(done.get("status").asText()).isEqualTo("finished");
          return;
        }
      }
    }
  }

  /** Live heap after GC: the least of a few collections, so garbage in flight does not count. */
  private static long liveHeap() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
    }
    return least;
  }

  /**
   * Live heap after GC, measured again (for at most 10 s) while it is above {@code bound}: what
   * timers still hold for a moment (a closing connection's 2-second grace) is let go meanwhile.
   */
  private static long liveHeapWithin(long bound) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long heap = liveHeap();
    while (heap >= bound && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
      heap = liveHeap();
    }
    return heap;
  }

  private static void await(String what, BooleanSupplier condition) {
    await(what, condition, () -> "");
  }

  private static void await(String what, BooleanSupplier condition, Supplier<String> state) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting until " + what + " " + state.get());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }
}
