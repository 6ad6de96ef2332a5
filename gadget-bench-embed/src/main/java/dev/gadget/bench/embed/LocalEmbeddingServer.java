package dev.gadget.bench.embed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.GadgetJson;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedding server on 127.0.0.1 for benchmarks, answering from an in-process model
 * ({@link LocalModel}): the OpenAI-compatible {@code POST /v1/embeddings} ({@code {"model",
 * "input"}} answered {@code {"object": "list", "data": [{"index", "embedding"}...], "model"}})
 * and Ollama's {@code POST /api/embed} (answered {@code {"model", "embeddings": [...]}}), the two
 * wire formats Gadget's {@code HttpToolEmbedder} speaks. {@code input} is a string or an array of
 * strings.
 *
 * <p>Bounds: a body of at most {@value #MAX_BODY_BYTES} bytes, at most {@value #MAX_INPUTS}
 * texts a request, each at most {@value #MAX_TEXT_CHARS} characters; two requests are embedded at
 * a time (the model uses every core for one). A request outside them, or for another model, is
 * answered 400 or 404 with an error in words, OpenAI's shape ({@code {"error": {"message",
 * "type"}}}), and the server goes on serving. It counts the requests and texts it embedded, so a
 * benchmark can tell what a cache saved.
 *
 * <p>Not for production: no authentication, loopback only. Thread-safe; {@link #close()} stops it.
 */
public final class LocalEmbeddingServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LocalEmbeddingServer.class);
  /** The largest request body read. */
  public static final int MAX_BODY_BYTES = 4 * 1024 * 1024;
  /** The most texts one request may carry. */
  public static final int MAX_INPUTS = 512;
  /** The longest text embedded, in characters. */
  public static final int MAX_TEXT_CHARS = 16_384;

  static {
    // the JDK's server writes an answer's headers and body apart; with Nagle's algorithm on, the
    // body then waits for the client's delayed ACK (40 ms on Linux), which Ollama's server and
    // llama.cpp's (TCP_NODELAY) never add. Read once, when the JVM's first HttpServer is made.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final LocalModel model;
  private final EmbeddingModel embeddings;
  private final HttpServer http;
  private final ExecutorService workers;
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong texts = new AtomicLong();

  private LocalEmbeddingServer(LocalModel model, int port) throws IOException {
    this.model = Objects.requireNonNull(model, "model");
    this.embeddings = model.load();
    this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
        64);
    // two workers, at most 256 requests waiting; past that the accepting thread runs the
    // request itself, and so stops taking new ones meanwhile
    this.workers = new ThreadPoolExecutor(2, 2, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(256), r -> {
          Thread t = new Thread(r, "embedding-server");
          t.setDaemon(true);
          return t;
        }, new ThreadPoolExecutor.CallerRunsPolicy());
    http.setExecutor(workers);
    http.createContext("/v1/embeddings", ex -> handle(ex, true));
    http.createContext("/api/embed", ex -> handle(ex, false));
    http.start();
  }

  /** Loads {@code model} and serves it on 127.0.0.1 at {@code port} (0: any free port). */
  public static LocalEmbeddingServer start(LocalModel model, int port) throws IOException {
    return new LocalEmbeddingServer(model, port);
  }

  /** The model served. */
  public LocalModel model() {
    return model;
  }

  /** The server's address, {@code http://127.0.0.1:PORT}. */
  public URI baseUrl() {
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
  }

  /** How many requests were answered with embeddings so far. */
  public long requests() {
    return requests.get();
  }

  /** How many texts were embedded so far. */
  public long texts() {
    return texts.get();
  }

  /** Embeds {@code inputs} with the served model, in order (no HTTP). */
  public List<float[]> embed(List<String> inputs) {
    List<TextSegment> segments = new ArrayList<>(inputs.size());
    inputs.forEach(s -> segments.add(TextSegment.from(s)));
    List<float[]> out = new ArrayList<>(inputs.size());
    for (Embedding e : embeddings.embedAll(segments).content()) {
      out.add(e.vector());
    }
    return out;
  }

  private void handle(HttpExchange ex, boolean openAi) throws IOException {
    try (ex) {
      if (!"POST".equals(ex.getRequestMethod())) {
        error(ex, 405, "use POST with a JSON body: {\"model\": \"" + model.id()
            + "\", \"input\": [\"text\", ...]}");
        return;
      }
      byte[] body;
      try (InputStream in = ex.getRequestBody()) {
        body = in.readNBytes(MAX_BODY_BYTES + 1);
      }
      if (body.length > MAX_BODY_BYTES) {
        error(ex, 413, "the request is larger than " + MAX_BODY_BYTES / (1024 * 1024) + " MB");
        return;
      }
      List<String> inputs;
      try {
        inputs = inputs(body);
      } catch (IllegalArgumentException e) {
        error(ex, e instanceof ModelNotServed ? 404 : 400, e.getMessage());
        return;
      }
      long t0 = System.nanoTime();
      List<float[]> vectors = embed(inputs);
      requests.incrementAndGet();
      texts.addAndGet(inputs.size());
      log.debug("embedded {} texts in {} ms", inputs.size(), (System.nanoTime() - t0) / 1_000_000);
      send(ex, 200, openAi ? openAiAnswer(vectors) : ollamaAnswer(vectors));
    } catch (RuntimeException e) {
      log.warn("an embedding request failed", e);
      error(ex, 500, "the model could not embed this request: " + e.getMessage());
    }
  }

  /** The texts of a request body, checked against the bounds and the model's name. */
  private List<String> inputs(byte[] body) {
    JsonNode root;
    try {
      root = GadgetJson.mapper().readTree(body);
    } catch (IOException e) {
      throw new IllegalArgumentException("the request body is not JSON");
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("the request body must be a JSON object with "
          + "\"model\" and \"input\"");
    }
    String asked = root.path("model").asText("");
    if (!asked.isEmpty() && !model.id().equals(asked)) {
      throw new ModelNotServed("model \"" + asked + "\" is not served here; this server serves \""
          + model.id() + "\"");
    }
    JsonNode input = root.path("input");
    List<String> out = new ArrayList<>();
    if (input.isTextual()) {
      out.add(input.asText());
    } else if (input.isArray()) {
      for (JsonNode t : input) {
        if (!t.isTextual()) {
          throw new IllegalArgumentException("\"input\" must hold only strings");
        }
        out.add(t.asText());
      }
    } else {
      throw new IllegalArgumentException("\"input\" must be a string or an array of strings");
    }
    if (out.isEmpty() || out.size() > MAX_INPUTS) {
      throw new IllegalArgumentException("\"input\" must hold 1 to " + MAX_INPUTS
          + " texts; got " + out.size());
    }
    for (String s : out) {
      if (s.isBlank() || s.length() > MAX_TEXT_CHARS) {
        throw new IllegalArgumentException("each text must be 1 to " + MAX_TEXT_CHARS
            + " characters and not blank");
      }
    }
    return out;
  }

  private byte[] openAiAnswer(List<float[]> vectors) {
    ObjectNode root = GadgetJson.mapper().createObjectNode().put("object", "list");
    ArrayNode data = root.putArray("data");
    for (int i = 0; i < vectors.size(); i++) {
      ObjectNode d = data.addObject().put("object", "embedding").put("index", i);
      putVector(d.putArray("embedding"), vectors.get(i));
    }
    root.put("model", model.id());
    return root.toString().getBytes(StandardCharsets.UTF_8);
  }

  private byte[] ollamaAnswer(List<float[]> vectors) {
    ObjectNode root = GadgetJson.mapper().createObjectNode().put("model", model.id());
    ArrayNode all = root.putArray("embeddings");
    vectors.forEach(v -> putVector(all.addArray(), v));
    return root.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void putVector(ArrayNode array, float[] v) {
    for (float x : v) {
      array.add(x);
    }
  }

  private void error(HttpExchange ex, int status, String message) throws IOException {
    ObjectNode root = GadgetJson.mapper().createObjectNode();
    root.putObject("error").put("message", message).put("type", status == 404
        ? "model_not_found" : status >= 500 ? "server_error" : "invalid_request_error");
    send(ex, status, root.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    http.stop(0);
    workers.shutdown();
    try {
      workers.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "LocalEmbeddingServer{" + model.id() + ", " + baseUrl() + "}";
  }

  /** Asked for a model this server does not serve. */
  private static final class ModelNotServed extends IllegalArgumentException {
    ModelNotServed(String message) {
      super(message);
    }
  }

  /**
   * Serves a model until the process is stopped: {@code [MODEL] [PORT]}, the model's id (default
   * {@code all-minilm-l6-v2-q}) and the port (default 11435).
   */
  public static void main(String[] args) throws IOException {
    LocalModel m = LocalModel.of(args.length > 0 ? args[0] : LocalModel.MINILM.id());
    int port = args.length > 1 ? Integer.parseInt(args[1]) : 11435;
    LocalEmbeddingServer server = start(m, port);
    log.info("serving {} at {}/v1/embeddings and {}/api/embed", m.id(), server.baseUrl(),
        server.baseUrl());
  }
}
