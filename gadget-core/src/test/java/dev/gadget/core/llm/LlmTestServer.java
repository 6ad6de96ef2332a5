package dev.gadget.core.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.GadgetJson;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A real JDK {@link HttpServer} on 127.0.0.1 that replays queued replies (recorded-style
 * streams) whole, one byte per write, or in random splits, flushing after every write, and
 * records every request. Like OkHttp's MockWebServer, but JDK only.
 */
public final class LlmTestServer implements AutoCloseable {
  static {
    // flush small writes at once instead of waiting for Nagle
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  /** How a reply's body is written. */
  public enum Delivery {
    /** One write, with a Content-Length. */
    WHOLE,
    /** One byte per write, chunked, flushed after each. */
    BYTE_BY_BYTE,
    /** Writes of 1 to 40 bytes, chunked, flushed after each. */
    RANDOM_SPLITS
  }

  /** A request the server received. */
  public record Recorded(String method, String path, String protocol, Map<String, List<String>> headers,
      String body, long arrivedNanos) {
    /** The body as JSON. */
    public JsonNode json() {
      try {
        return GadgetJson.mapper().readTree(body);
      } catch (IOException e) {
        throw new AssertionError("request body is not JSON: " + body, e);
      }
    }

    /** The first value of a header (case-insensitive), or {@code null}. */
    public String header(String name) {
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
          return e.getValue().get(0);
        }
      }
      return null;
    }
  }

  /** One scripted reply. */
  public static final class Reply {
    final int status;
    final Map<String, String> headers = new LinkedHashMap<>();
    final byte[] body;
    Delivery delivery = Delivery.WHOLE;
    int stallAfter = -1;
    boolean stallBeforeHeaders;
    List<String> endlessLines;
    long seed = 42;
    long paceNanos;
    long headerDelayNanos;
    /** Completes with the exception a write got once the client went away. */
    public final CompletableFuture<Throwable> writeFailed = new CompletableFuture<>();
    /** Completes when the handler is done with this reply. */
    public final CompletableFuture<Void> handled = new CompletableFuture<>();

    Reply(int status, byte[] body) {
      this.status = status;
      this.body = body;
    }

    /** A reply with a body of raw bytes (which need not be valid UTF-8). */
    public static Reply bytes(int status, byte[] body) {
      return new Reply(status, body.clone());
    }

    /** Sets a response header. */
    public Reply header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    /** How to write the body. */
    public Reply delivery(Delivery d) {
      this.delivery = d;
      return this;
    }

    /** The seed for {@link Delivery#RANDOM_SPLITS}. */
    public Reply seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Waits this long before sending the headers. */
    public Reply delayHeaders(java.time.Duration delay) {
      this.headerDelayNanos = delay.toNanos();
      return this;
    }

    /** Pauses this long after every write: a slow but steady server. */
    public Reply pace(java.time.Duration pause) {
      this.paceNanos = pause.toNanos();
      return this;
    }

    /** Writes only the first {@code bytes} bytes, then holds the connection open silently. */
    public Reply stallAfter(int bytes) {
      this.stallAfter = bytes;
      return this;
    }

    /** Holds the connection open without sending headers. */
    public Reply stallBeforeHeaders() {
      this.stallBeforeHeaders = true;
      return this;
    }

    /**
     * After the body, writes these lines in turn, forever, one every few milliseconds, until a
     * write fails (the client closed the connection): {@link #writeFailed} then completes.
     */
    public Reply thenEndlessly(List<String> lines) {
      this.endlessLines = List.copyOf(lines);
      return this;
    }
  }

  private final HttpServer server;
  private final ExecutorService pool;
  private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
  private final BlockingQueue<Reply> modelLists = new LinkedBlockingQueue<>();
  private final BlockingQueue<Recorded> requests = new LinkedBlockingQueue<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger requestCount = new AtomicInteger();
  private volatile boolean closed;

  private LlmTestServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
    AtomicInteger n = new AtomicInteger();
    pool = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "test-server-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(pool);
    server.createContext("/", this::handle);
    server.start();
  }

  /** Starts a server. */
  public static LlmTestServer start() {
    try {
      return new LlmTestServer();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code http://127.0.0.1:port}. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** {@code http://127.0.0.1:port/v1}. */
  public URI v1() {
    return URI.create(url() + "/v1");
  }

  /** Queues a reply with this body. */
  public Reply enqueue(int status, String body) {
    return enqueue(new Reply(status, body.getBytes(StandardCharsets.UTF_8)));
  }

  /** Queues a 200 reply with this body. */
  public Reply enqueue(String body) {
    return enqueue(200, body);
  }

  /** Queues a reply. */
  public Reply enqueue(Reply reply) {
    replies.add(reply);
    return reply;
  }

  /**
   * Queues a reply for the next {@code GET} of a path ending in {@code /models} (a model list):
   * those requests are served from this queue only. With none queued, such a request is
   * answered 404 and neither recorded nor counted, as a server without a model list would; so a
   * client that asks for one (the context window) does not disturb a test of other requests.
   */
  public Reply enqueueModelList(int status, String body) {
    Reply reply = new Reply(status, body.getBytes(StandardCharsets.UTF_8));
    modelLists.add(reply);
    return reply;
  }

  /** {@link #enqueueModelList(int, String)} with status 200. */
  public Reply enqueueModelList(String body) {
    return enqueueModelList(200, body);
  }

  /** The next request received, waiting up to 10 s. */
  public Recorded takeRequest() {
    try {
      Recorded r = requests.poll(10, TimeUnit.SECONDS);
      if (r == null) {
        throw new AssertionError("no request arrived within 10 s");
      }
      return r;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** How many requests arrived so far. */
  public int requestCount() {
    return requestCount.get();
  }

  /** Requests received but not taken. */
  public int pendingRequests() {
    return requests.size();
  }

  private void handle(HttpExchange ex) throws IOException {
    long arrived = System.nanoTime();
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    boolean modelList = ex.getRequestMethod().equals("GET")
        && ex.getRequestURI().getPath().endsWith("/models");
    Reply listReply = modelList ? modelLists.poll() : null;
    if (modelList && listReply == null) {
      byte[] msg = "{\"error\":\"no model list here\"}".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(404, msg.length);
      ex.getResponseBody().write(msg);
      ex.close();
      return;
    }
    // counted before it is published: a test that took this request must see it counted
    requestCount.incrementAndGet();
    requests.add(new Recorded(ex.getRequestMethod(), ex.getRequestURI().getPath(),
        ex.getProtocol(), Map.copyOf(ex.getRequestHeaders()), body, arrived));
    Reply reply = modelList ? listReply : replies.poll();
    if (reply == null) {
      byte[] msg = "{\"error\":\"no reply queued in LlmTestServer\"}".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(599, msg.length);
      ex.getResponseBody().write(msg);
      ex.close();
      return;
    }
    try {
      serve(ex, reply);
    } catch (IOException e) {
      reply.writeFailed.complete(e);
    } finally {
      reply.handled.complete(null);
      try {
        ex.close();
      } catch (RuntimeException ignored) {
        // the client is gone
      }
    }
  }

  private void serve(HttpExchange ex, Reply reply) throws IOException {
    if (reply.stallBeforeHeaders) {
      awaitRelease();
      return;
    }
    if (reply.headerDelayNanos > 0) {
      LockSupport.parkNanos(reply.headerDelayNanos);
    }
    reply.headers.forEach((k, v) -> ex.getResponseHeaders().add(k, v));
    byte[] body = reply.body;
    int limit = reply.stallAfter >= 0 ? Math.min(reply.stallAfter, body.length) : body.length;
    boolean fixed = reply.delivery == Delivery.WHOLE && reply.stallAfter < 0
        && reply.endlessLines == null;
    ex.sendResponseHeaders(reply.status, fixed ? (body.length == 0 ? -1 : body.length) : 0);
    OutputStream out = ex.getResponseBody();
    Random random = new Random(reply.seed);
    int pos = 0;
    while (pos < limit) {
      int n;
      switch (reply.delivery) {
        case BYTE_BY_BYTE:
          n = 1;
          break;
        case RANDOM_SPLITS:
          n = 1 + random.nextInt(40);
          break;
        default:
          n = limit - pos;
      }
      n = Math.min(n, limit - pos);
      out.write(body, pos, n);
      out.flush();
      pos += n;
      if (reply.paceNanos > 0) {
        LockSupport.parkNanos(reply.paceNanos);
      }
    }
    if (reply.stallAfter >= 0) {
      awaitRelease();
      return;
    }
    if (reply.endlessLines != null) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      int i = 0;
      while (!closed && System.nanoTime() < deadline) {
        String line = reply.endlessLines.get(i++ % reply.endlessLines.size());
        out.write(line.getBytes(StandardCharsets.UTF_8)); // throws once the client is gone
        out.flush();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
      return;
    }
    out.close();
  }

  private void awaitRelease() {
    try {
      release.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Releases stalled replies and stops the server. */
  @Override
  public void close() {
    closed = true;
    release.countDown();
    server.stop(0);
    pool.shutdownNow();
  }

  /** Splits a string into lines for {@link Reply#thenEndlessly}. */
  public static List<String> lines(String... lines) {
    return new ArrayList<>(List.of(lines));
  }
}
