package dev.gadget.acp.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON-RPC 2.0 over newline-delimited JSON: reads requests, notifications and responses from
 * {@code in}, one per line, and writes to {@code out}. Requests run on the executor (so a long
 * {@code session/prompt} never holds up {@code session/cancel} or the answers to the agent's own
 * requests); notifications and responses are handled on the reader thread. Anything malformed
 * is answered with a JSON-RPC error, in people's words, and the connection goes on. Writes are
 * serialized: each message is one line, written and flushed whole.
 */
public final class RpcConnection {
  private static final Logger log = LoggerFactory.getLogger(RpcConnection.class);

  /** A method's handler: returns the result, or throws {@link RpcException}. */
  @FunctionalInterface
  public interface Method {
    /** Answers one request. */
    Object handle(JsonNode params) throws Exception;
  }

  private final ObjectMapper json = GadgetJson.mapper();
  private final OutputStream out;
  private final int maxBytes;
  private final Executor executor;
  private final Map<String, Method> methods = new TreeMap<>();
  private final Map<String, Consumer<JsonNode>> notifications = new ConcurrentHashMap<>();
  private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final AtomicBoolean writeFailed = new AtomicBoolean();

  /** A connection writing to {@code out}; messages longer than {@code maxBytes} are refused. */
  public RpcConnection(OutputStream out, int maxBytes, Executor executor) {
    this.out = Objects.requireNonNull(out, "out");
    this.maxBytes = maxBytes;
    this.executor = Objects.requireNonNull(executor, "executor");
  }

  /** Answers requests of {@code name} with {@code method}. Call before {@link #serve}. */
  public RpcConnection method(String name, Method method) {
    methods.put(name, method);
    return this;
  }

  /** Handles notifications of {@code name} (on the reader thread: keep it short). */
  public RpcConnection notification(String name, Consumer<JsonNode> handler) {
    notifications.put(name, handler);
    return this;
  }

  /**
   * Reads {@code in} until it ends, dispatching each message. Then every call still waiting for
   * the client's answer fails.
   */
  public void serve(InputStream in) throws IOException {
    LineReader reader = new LineReader(in, maxBytes);
    try {
      for (LineReader.Line line = reader.next(); line != null; line = reader.next()) {
        if (line.oversized()) {
          log.warn("skipped a message of {} bytes (over the limit of {})", line.bytes(), maxBytes);
          sendError(null, RpcException.INVALID_REQUEST, "That message is " + line.bytes()
              + " bytes long, over Gadget's limit of " + maxBytes + " bytes for one message; it "
              + "was skipped. (Send large files by path, not inline.)");
          continue;
        }
        dispatch(line.text());
      }
    } finally {
      RpcException closed = new RpcException(RpcException.INTERNAL_ERROR,
          "the client closed the connection");
      pending.values().forEach(f -> f.completeExceptionally(closed));
    }
  }

  private void dispatch(String text) {
    JsonNode msg;
    try {
      msg = json.readTree(text);
    } catch (JsonProcessingException e) {
      sendError(null, RpcException.PARSE_ERROR, "Gadget could not read that message: it is not "
          + "valid JSON (" + e.getOriginalMessage() + "). Each message must be one JSON-RPC 2.0 "
          + "object on one line.");
      return;
    }
    JsonNode id = msg == null ? null : msg.get("id");
    boolean idOk = id == null || id.isTextual() || id.isIntegralNumber() || id.isNull();
    if (msg == null || !msg.isObject() || !"2.0".equals(msg.path("jsonrpc").asText(null))
        || !idOk) {
      sendError(idOk ? id : null, RpcException.INVALID_REQUEST, "Gadget could not read that "
          + "message: it is not a JSON-RPC 2.0 message (an object with \"jsonrpc\": \"2.0\", a "
          + "\"method\" and, for a request, an \"id\" that is a string or a number).");
      return;
    }
    JsonNode method = msg.get("method");
    if (method == null) {
      if (id != null && (msg.has("result") || msg.has("error"))) {
        answered(id, msg);
      } else {
        sendError(id, RpcException.INVALID_REQUEST, "Gadget could not read that message: it "
            + "has no \"method\", and is not an answer to a request of Gadget's either.");
      }
      return;
    }
    if (!method.isTextual()) {
      sendError(id, RpcException.INVALID_REQUEST, "Gadget could not read that message: its "
          + "\"method\" must be a string.");
      return;
    }
    String name = method.asText();
    JsonNode params = msg.has("params") ? msg.get("params") : json.createObjectNode();
    if (id == null) {
      Consumer<JsonNode> handler = notifications.get(name);
      if (handler == null) {
        log.debug("ignored the notification {}", name);
        return;
      }
      try {
        handler.accept(params);
      } catch (RuntimeException e) {
        log.warn("the notification {} failed", name, e);
      }
      return;
    }
    Method handler = methods.get(name);
    if (handler == null) {
      sendError(id, RpcException.METHOD_NOT_FOUND, "Gadget's ACP agent has no method \"" + name
          + "\". It answers " + String.join(", ", methods.keySet()) + ".");
      return;
    }
    try {
      executor.execute(() -> run(id, name, handler, params));
    } catch (RejectedExecutionException e) {
      sendError(id, RpcException.INTERNAL_ERROR, "Gadget is answering as many requests of this "
          + "editor as it takes at once; send " + name + " again once one is answered.");
    }
  }

  private void run(JsonNode id, String name, Method handler, JsonNode params) {
    try {
      Object result = handler.handle(params);
      ObjectNode msg = json.createObjectNode().put("jsonrpc", "2.0");
      msg.set("id", id);
      msg.set("result", result == null ? json.createObjectNode() : json.valueToTree(result));
      send(msg);
    } catch (RpcException e) {
      sendError(id, e.code(), e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      sendError(id, RpcException.INTERNAL_ERROR, "Gadget stopped before it answered " + name);
    } catch (Exception e) {
      log.warn("{} failed", name, e);
      sendError(id, RpcException.INTERNAL_ERROR, "Gadget failed to answer " + name + ": "
          + (e.getMessage() == null ? e.toString() : e.getMessage()));
    }
  }

  private void answered(JsonNode id, JsonNode msg) {
    CompletableFuture<JsonNode> f = id.canConvertToLong() ? pending.remove(id.asLong()) : null;
    if (f == null) {
      log.debug("an answer to no request of ours: id {}", id);
      return;
    }
    JsonNode error = msg.get("error");
    if (error != null && !error.isNull()) {
      f.completeExceptionally(new RpcException(error.path("code").asInt(
          RpcException.INTERNAL_ERROR), error.path("message").asText("the client failed")));
    } else {
      f.complete(msg.get("result"));
    }
  }

  /**
   * Sends the client a request; the future completes with its result, or exceptionally with an
   * {@link RpcException} when the client answers with an error or goes away. The caller bounds
   * the wait.
   */
  public CompletableFuture<JsonNode> call(String method, Object params) {
    long id = ids.incrementAndGet();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(id, answer);
    answer.whenComplete((r, e) -> pending.remove(id));
    ObjectNode msg = json.createObjectNode().put("jsonrpc", "2.0").put("id", id)
        .put("method", method);
    msg.set("params", json.valueToTree(params));
    send(msg);
    return answer;
  }

  /** Sends the client a notification. */
  public void notify(String method, Object params) {
    ObjectNode msg = json.createObjectNode().put("jsonrpc", "2.0").put("method", method);
    msg.set("params", json.valueToTree(params));
    send(msg);
  }

  private void sendError(JsonNode id, int code, String message) {
    ObjectNode msg = json.createObjectNode().put("jsonrpc", "2.0");
    msg.set("id", id == null ? json.nullNode() : id);
    msg.putObject("error").put("code", code).put("message", message);
    send(msg);
  }

  private void send(ObjectNode msg) {
    byte[] bytes;
    try {
      bytes = (json.writeValueAsString(msg) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a message could not be written as JSON", e);
    }
    synchronized (out) {
      try {
        out.write(bytes);
        out.flush();
      } catch (IOException e) {
        if (writeFailed.compareAndSet(false, true)) {
          log.warn("could not write to the client (it may have gone): {}", e.toString());
        }
      }
    }
  }
}
