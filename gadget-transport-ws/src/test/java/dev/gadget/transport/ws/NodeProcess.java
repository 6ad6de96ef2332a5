package dev.gadget.transport.ws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One node script of the interop harness in {@code src/test/node}: its stdout is read as one
 * JSON object per line into a queue; its stderr goes to a temp file shown when an expectation
 * fails. {@link #close()} always kills it. {@code node} must be on the PATH and the harness
 * installed ({@code npm ci}, which the build runs in generate-test-resources).
 */
public final class NodeProcess implements AutoCloseable {
  public static final Path HARNESS = Paths.get("src/test/node").toAbsolutePath();
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNode EOF = JSON.createObjectNode().put("event", "<eof>");

  private final Process process;
  private final Path stderr;
  private final BlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();
  private final Writer stdin;

  private NodeProcess(Process process, Path stderr) {
    this.process = process;
    this.stderr = stderr;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(this::readLines, "node-stdout-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code node <script> <args...>} in the harness directory. */
  public static NodeProcess start(String script, String... args) throws IOException {
    assertThat(HARNESS.resolve("node_modules/socket.io-client")).as(
        "the Node harness is installed (the build runs npm ci in %s)", HARNESS).isDirectory();
    List<String> command = new ArrayList<>(List.of("node", script));
    command.addAll(List.of(args));
    Path err = Files.createTempFile("gadget-node-", ".stderr");
    ProcessBuilder pb = new ProcessBuilder(command)
        .directory(HARNESS.toFile())
        .redirectError(err.toFile());
    pb.environment().remove("DEBUG");
    return new NodeProcess(pb.start(), err);
  }

  private void readLines() {
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        try {
          lines.add(JSON.readTree(line));
        } catch (IOException e) {
          lines.add(JSON.createObjectNode().put("event", "<non-json>").put("line", line));
        }
      }
    } catch (IOException e) {
      // the process was killed
    } finally {
      lines.add(EOF);
    }
  }

  /** The next line, waiting up to {@code timeout}. */
  public JsonNode next(Duration timeout) {
    try {
      JsonNode line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (line == null) {
        fail("no line from node within " + timeout + "; " + diagnostics());
      }
      if (line == EOF) {
        lines.add(EOF);
      }
      seen.add(line.toString());
      return line;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * Reads lines into {@code into} up to and including the first that {@code stop} accepts,
   * within {@code wait}, and returns that one; fails on a line reporting an error or the end of
   * the script.
   */
  public JsonNode readUntil(List<JsonNode> into, Predicate<JsonNode> stop, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        fail("node did not get there within " + wait + "; " + diagnostics());
      }
      JsonNode line = next(Duration.ofNanos(left));
      if (List.of("error", "deadline", "<eof>", "<non-json>").contains(
          line.path("event").asText())) {
        fail("node: " + line + "; " + diagnostics());
      }
      into.add(line);
      if (stop.test(line)) {
        return line;
      }
    }
  }

  /** The next line, which must be {@code {"event": event, ...}} (within 10 s). */
  public JsonNode expect(String event) {
    JsonNode line = next(Duration.ofSeconds(10));
    assertThat(line.path("event").asText()).as("next line from node; %s", diagnostics())
        .isEqualTo(event);
    return line;
  }

  /** Writes one line to the script's stdin. */
  public void send(String line) throws IOException {
    stdin.write(line + "\n");
    stdin.flush();
  }

  /** What node printed so far and its stderr, for failure messages. */
  public String diagnostics() {
    String err;
    try {
      err = Files.readString(stderr);
    } catch (IOException e) {
      err = "<unreadable: " + e + ">";
    }
    return "lines so far " + seen + ", stderr: " + (err.isBlank() ? "<empty>" : err);
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    } finally {
      try {
        Files.deleteIfExists(stderr);
      } catch (IOException ignored) {
        // a temp file
      }
    }
  }
}
