package dev.gadget.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gadget.core.GadgetJson;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An OpenAI-compatible server whose replies depend on the conversation: a turn's first round
 * streams {@link #TOKENS} numbered tokens and asks for a command; after the tool's result the
 * second round streams as many and stops. Each token comes {@link #TOKEN_MS} after the last.
 */
final class ScriptLlm implements AutoCloseable {
  /** Tokens of each round. */
  static final int TOKENS = 16;
  /** Milliseconds between two tokens. */
  static final long TOKEN_MS = 30;
  private static final Pattern TURN = Pattern.compile("turn-(\\d+)");
  final HttpServer http;
  final Path dir;
  final Map<String, AtomicIntegerArray> progress = new ConcurrentHashMap<>();
  /** Turns whose command runs for 60 s: a drone is killed while it runs. */
  final Set<Integer> longCommands = ConcurrentHashMap.newKeySet();

  ScriptLlm(Path dir) throws IOException {
    this.dir = dir;
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    // a thread per streamed answer, at most 64; past that the accepting thread streams it
    http.setExecutor(new ThreadPoolExecutor(0, 64, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
        r -> {
          Thread t = new Thread(r, "crash-suite-llm");
          t.setDaemon(true);
          return t;
        }, new ThreadPoolExecutor.CallerRunsPolicy()));
    http.createContext("/", this::handle);
    http.start();
  }

  String v1() {
    return "http://127.0.0.1:" + http.getAddress().getPort() + "/v1";
  }

  int written(int turn, int round) {
    return progress.getOrDefault(turn + "/" + round, new AtomicIntegerArray(2)).get(0);
  }

  boolean done(int turn, int round) {
    return progress.getOrDefault(turn + "/" + round, new AtomicIntegerArray(2)).get(1) == 1;
  }

  private void handle(HttpExchange ex) throws IOException {
    if (ex.getRequestMethod().equals("GET")) { // no model list (the context window's)
      ex.sendResponseHeaders(404, -1);
      ex.close();
      return;
    }
    JsonNode body = GadgetJson.mapper().readTree(ex.getRequestBody());
    JsonNode messages = body.path("messages");
    int turn = -1;
    for (JsonNode m : messages) {
      Matcher matcher = TURN.matcher(m.path("content").asText(""));
      if (m.path("role").asText().equals("user") && matcher.find()) {
        turn = Integer.parseInt(matcher.group(1));
      }
    }
    String lastRole = messages.get(messages.size() - 1).path("role").asText();
    int round = lastRole.equals("tool") ? 2 : 1;
    AtomicIntegerArray p = new AtomicIntegerArray(2);
    progress.put(turn + "/" + round, p);
    ex.getResponseHeaders().add("Content-Type", "text/event-stream");
    ex.sendResponseHeaders(200, 0);
    try (OutputStream out = ex.getResponseBody()) {
      for (int i = 0; i < TOKENS; i++) {
        String token = String.format("t%dr%d.%03d ", turn, round, i);
        write(out, "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + token
            + "\"},\"finish_reason\":null}]}");
        p.incrementAndGet(0);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(TOKEN_MS)); // the stream's pace
      }
      if (round == 1) {
        String command = "echo run >> runs-" + turn + ".log; echo $$ > cmd-" + turn
            + ".pid; sleep " + (longCommands.contains(turn) ? "60" : "0.6");
        String args = GadgetJson.mapper().createObjectNode().put("command", command)
            .toString();
        write(out, "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
            + "\"id\":\"call_" + turn + "\",\"type\":\"function\",\"function\":{\"name\":"
            + "\"run_command\",\"arguments\":"
            + GadgetJson.mapper().getNodeFactory().textNode(args) + "}}]},"
            + "\"finish_reason\":null}]}");
        write(out, "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}");
      } else {
        write(out, "{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}");
      }
      out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
      p.set(1, 1);
    } catch (IOException e) {
      // the drone went away mid-stream
    }
  }

  private static void write(OutputStream out, String json) throws IOException {
    out.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  @Override
  public void close() {
    http.stop(0);
  }
}
