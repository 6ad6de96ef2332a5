package dev.gadget.transport.ws;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.java_websocket.client.WebSocketClient;
import org.java_websocket.handshake.ServerHandshake;

/**
 * One-in-flight echo round trips from many client threads at once, each timed: every client
 * sends a frame, waits for its answer, sends the next. A frame the server strands shows as a
 * round trip that takes until {@code stall} (then the run stops and says so). Used by
 * {@link StrandedFrameStressTest} and {@link RoundTripBenchmark}.
 */
final class EchoStress {
  /** Round trips slower than this are listed one by one. */
  static final long LATE_MILLIS = 100;

  /** Latencies in microseconds, bucketed by power of two, and every late round trip. */
  static final class Result {
    final long[] buckets = new long[40];
    final List<String> late = new ArrayList<>();
    final AtomicLong count = new AtomicLong();
    volatile String stalled;
    long maxMicros;
    long elapsedMillis;

    synchronized void add(int client, long n, long micros) {
      count.incrementAndGet();
      buckets[63 - Long.numberOfLeadingZeros(Math.max(1, micros))]++;
      maxMicros = Math.max(maxMicros, micros);
      if (micros > LATE_MILLIS * 1000) {
        late.add("client " + client + " round trip " + n + ": " + micros / 1000 + " ms");
      }
    }

    synchronized long percentileMicros(double p) {
      long want = (long) Math.ceil(count.get() * p);
      long seen = 0;
      for (int i = 0; i < buckets.length; i++) {
        seen += buckets[i];
        if (seen >= want) {
          return 1L << (i + 1);
        }
      }
      return maxMicros;
    }

    synchronized String table() {
      StringBuilder s = new StringBuilder(String.format("%,d round trips in %,d ms (%,d/s)%n",
          count.get(), elapsedMillis, count.get() * 1000 / Math.max(1, elapsedMillis)));
      s.append(String.format("p50 < %d us, p99 < %d us, p99.99 < %d us, max %d us%n",
          percentileMicros(0.5), percentileMicros(0.99), percentileMicros(0.9999), maxMicros));
      for (int i = 0; i < buckets.length; i++) {
        if (buckets[i] > 0) {
          s.append(String.format("  < %,10d us: %,d%n", 1L << (i + 1), buckets[i]));
        }
      }
      s.append("later than ").append(LATE_MILLIS).append(" ms: ").append(late.size()).append('\n');
      late.forEach(l -> s.append("  ").append(l).append('\n'));
      if (stalled != null) {
        s.append("STALLED: ").append(stalled).append('\n');
      }
      return s.toString();
    }
  }

  /** What a client sends and how it knows the answer. */
  interface Dialect {
    /** Frames to send right after the WebSocket opens (nothing to wait for), may be empty. */
    List<String> hello();

    /** Whether {@code frame} is the answer the client waits for (others are ignored). */
    boolean isAnswer(String frame);

    String request(long n);
  }

  /** Engine.IO/Socket.IO: connect to "/", then {@code echo} events with an ack. */
  static final Dialect SOCKET_IO = new Dialect() {
    @Override
    public List<String> hello() {
      return List.of("40");
    }

    @Override
    public boolean isAnswer(String frame) {
      return frame.startsWith("43");
    }

    @Override
    public String request(long n) {
      return "42" + (n % 1000) + "[\"echo\"," + n + "]";
    }
  };

  /** Any frame echoed as is. */
  static final Dialect RAW = new Dialect() {
    @Override
    public List<String> hello() {
      return List.of();
    }

    @Override
    public boolean isAnswer(String frame) {
      return true;
    }

    @Override
    public String request(long n) {
      return "ping " + n;
    }
  };

  private EchoStress() {}

  /**
   * {@code clients} clients, {@code perClient} round trips each, against {@code uri}; a round
   * trip that takes longer than {@code stall} ends the run.
   */
  static Result run(URI uri, Dialect dialect, int clients, long perClient, long stallMillis)
      throws Exception {
    Result result = new Result();
    List<Client> all = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      Client c = new Client(uri, dialect);
      if (!c.connectBlocking(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("client " + i + " did not connect");
      }
      for (String h : dialect.hello()) {
        c.send(h);
      }
      all.add(c);
    }
    CountDownLatch done = new CountDownLatch(clients);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long start = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      int id = i;
      Client c = all.get(i);
      Thread t = new Thread(() -> {
        try {
          for (long n = 0; n < perClient && result.stalled == null; n++) {
            long t0 = System.nanoTime();
            c.send(dialect.request(n));
            if (c.answers.poll(stallMillis, TimeUnit.MILLISECONDS) == null) {
              result.stalled = "client " + id + " had no answer to round trip " + n + " within "
                  + stallMillis + " ms";
              return;
            }
            result.add(id, n, (System.nanoTime() - t0) / 1000);
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        } finally {
          done.countDown();
        }
      }, "echo-stress-" + i);
      t.setDaemon(true);
      t.start();
    }
    done.await();
    result.elapsedMillis = (System.nanoTime() - start) / 1_000_000;
    for (Client c : all) {
      c.close(); // not closeBlocking: its wait has no bound
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a client failed", failure.get());
    }
    return result;
  }

  private static final class Client extends WebSocketClient {
    final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Dialect dialect;

    Client(URI uri, Dialect dialect) {
      super(uri);
      this.dialect = dialect;
      setConnectionLostTimeout(0);
      setTcpNoDelay(true);
    }

    @Override
    public void onOpen(ServerHandshake handshake) {}

    @Override
    public void onMessage(String message) {
      if ("2".equals(message)) {
        send("3"); // an Engine.IO ping
      } else if (dialect.isAnswer(message)) {
        answers.add(message);
      }
    }

    @Override
    public void onClose(int code, String reason, boolean remote) {}

    @Override
    public void onError(Exception ex) {}
  }
}
