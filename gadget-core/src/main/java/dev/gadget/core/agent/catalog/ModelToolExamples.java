package dev.gadget.core.agent.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmClient;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ToolDefinition;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Examples written by a model, once per tool definition: a definition it has no examples of yet
 * is queued, and a thread of its own asks the model for them, {@value #BATCH} tools a request,
 * while search goes on without them; the next catalog built (the next turn's) has them. Kept
 * in memory under a SHA-256 of the model and the definition (at most {@value #MAX_ENTRIES}), and
 * in {@code file} when one is given (JSON lines, read back at start, at most 16 MiB), so a
 * definition is written for once, however many turns, catalogs and restarts use it. A model
 * that fails, or answers otherwise, is logged (WARN once, then DEBUG) and the tools of that
 * request are not asked for again by this instance. Thread-safe; {@link #close} stops it.
 */
public final class ModelToolExamples implements ToolExamples, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ModelToolExamples.class);
  /** How many examples a tool is given. */
  public static final int PER_TOOL = 6;
  /** How many tools one request to the model asks for. */
  public static final int BATCH = 8;
  /** The most definitions known (in memory and in the file). */
  public static final int MAX_ENTRIES = 10_000;
  static final long MAX_FILE_BYTES = 16L << 20;
  /** The longest wait for one answer of the model. */
  static final Duration CALL_TIMEOUT = Duration.ofMinutes(5);

  private final LlmClient llm;
  private final String model;
  private final Path file;
  private final Map<String, List<String>> known = new ConcurrentHashMap<>();
  private final Set<String> asked = ConcurrentHashMap.newKeySet();
  private final BlockingQueue<ToolDefinition> todo = new ArrayBlockingQueue<>(1_024);
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final Object enqueue = new Object();
  /** Its one thread, started with the first definition queued (guarded by {@code enqueue}). */
  private Thread writer;
  private volatile boolean warned;
  private volatile boolean closed;

  /**
   * Examples written by {@code model} through {@code llm}, kept in {@code file} too when it is
   * not {@code null} (created if missing; its directory must exist).
   */
  public ModelToolExamples(LlmClient llm, String model, Path file) {
    this.llm = Objects.requireNonNull(llm, "llm");
    this.model = Objects.requireNonNull(model, "model");
    this.file = file;
    if (file != null && Files.isRegularFile(file)) {
      load(file);
    }
  }

  /** Queues every definition of {@code tools} it has no examples of, as one batch or more. */
  @Override
  public void expect(List<ToolDefinition> tools) {
    synchronized (enqueue) {
      tools.forEach(this::of);
    }
  }

  @Override
  public List<String> of(ToolDefinition tool) {
    String key = key(tool);
    List<String> examples = known.get(key);
    if (examples != null) {
      return examples;
    }
    synchronized (enqueue) {
      if (!closed && known.size() < MAX_ENTRIES && asked.add(key)) {
        if (writer == null) { // none until there is something to write: a full cache needs none
          writer = new Thread(this::write, "gadget-tool-examples");
          writer.setDaemon(true);
          writer.start();
        }
        inFlight.incrementAndGet();
        if (!todo.offer(tool)) { // full: asked again by a later catalog
          asked.remove(key);
          inFlight.decrementAndGet();
        }
      }
    }
    return List.of();
  }

  /** How many definitions it has examples of. */
  public int size() {
    return known.size();
  }

  /** How many requests it has made of the model. */
  public int requests() {
    return requests.get();
  }

  /** Waits at most {@code timeout} for every queued definition to be written; true if so. */
  public boolean awaitWritten(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (inFlight.get() > 0 && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(5); // polls its own counter; bounded by the deadline
    }
    return inFlight.get() == 0;
  }

  private void write() {
    while (!closed) {
      List<ToolDefinition> batch = new ArrayList<>();
      try {
        batch.add(todo.take());
      } catch (InterruptedException e) {
        return;
      }
      synchronized (enqueue) { // what a catalog expects comes in whole: batches are full
        todo.drainTo(batch, BATCH - 1);
      }
      try {
        writeBatch(batch);
      } finally {
        inFlight.addAndGet(-batch.size());
      }
    }
  }

  private void writeBatch(List<ToolDefinition> batch) {
    requests.incrementAndGet();
    LlmRequest request = LlmRequest.builder(model, ExamplePrompt.messages(batch, PER_TOOL))
        .build();
    LlmCall call = llm.stream(request, new LlmListener() {});
    try {
      LlmCompletion reply = call.result().get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      Map<String, List<String>> byName = ExamplePrompt.read(reply.text(), batch, PER_TOOL);
      for (ToolDefinition t : batch) {
        List<String> examples = byName.get(t.name());
        if (examples != null) {
          String key = key(t);
          known.put(key, examples);
          save(key, examples);
        }
      }
    } catch (InterruptedException e) {
      call.cancel();
      Thread.currentThread().interrupt();
      closed = true;
    } catch (TimeoutException e) {
      call.cancel();
      failed(batch, "no answer within " + CALL_TIMEOUT.toMinutes() + " minutes");
    } catch (ExecutionException e) {
      failed(batch, e.getCause() == null ? "the call failed" : e.getCause().getMessage());
    } catch (IllegalArgumentException e) {
      failed(batch, e.getMessage());
    }
  }

  private void failed(List<ToolDefinition> batch, String why) {
    if (!warned) {
      warned = true;
      log.warn("model {} could not write examples of {} tools ({}); search goes on without "
          + "them", model, batch.size(), why);
    } else {
      log.debug("model {} could not write examples of {} tools: {}", model, batch.size(), why);
    }
  }

  private synchronized void save(String key, List<String> examples) {
    if (file == null) {
      return;
    }
    ObjectNode line = GadgetJson.mapper().createObjectNode().put("key", key);
    examples.forEach(line.putArray("examples")::add);
    try {
      if (Files.exists(file) && Files.size(file) > MAX_FILE_BYTES) {
        return; // full: kept in memory only
      }
      Files.writeString(file, GadgetJson.mapper().writeValueAsString(line) + "\n",
          StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      log.warn("could not keep tool examples in {}: {}", file, e.getMessage());
    }
  }

  private void load(Path from) {
    int skipped = 0;
    try (BufferedReader in = Files.newBufferedReader(from, StandardCharsets.UTF_8)) {
      long read = 0;
      for (String line; (line = in.readLine()) != null && read < MAX_FILE_BYTES
          && known.size() < MAX_ENTRIES; ) {
        read += line.length() + 1;
        try {
          JsonNode json = GadgetJson.mapper().readTree(line);
          List<String> examples = new ArrayList<>();
          json.path("examples").forEach(e -> examples.add(e.asText()));
          if (json.path("key").isTextual() && !examples.isEmpty()) {
            known.put(json.get("key").asText(), List.copyOf(examples));
          } else {
            skipped++;
          }
        } catch (IOException e) {
          skipped++;
        }
      }
    } catch (IOException e) {
      log.warn("could not read tool examples from {}: {}", from, e.getMessage());
    }
    if (skipped > 0) {
      log.warn("{} lines of {} are not tool examples and were skipped", skipped, from);
    }
  }

  private String key(ToolDefinition t) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String part : List.of(model, t.name(), t.description(), t.parameters().toString())) {
        sha.update(part.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Stops writing; what is queued is dropped. */
  @Override
  public void close() {
    synchronized (enqueue) {
      closed = true;
      if (writer != null) {
        writer.interrupt();
      }
    }
  }

  @Override
  public String toString() {
    return "ModelToolExamples{" + model + ", " + known.size() + " known, " + requests.get()
        + " requests}";
  }
}
