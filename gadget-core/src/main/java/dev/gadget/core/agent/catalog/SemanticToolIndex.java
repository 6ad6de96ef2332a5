package dev.gadget.core.agent.catalog;

import dev.gadget.core.agent.internal.WarnOnce;
import dev.gadget.core.llm.ToolDefinition;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embeddings of tool definitions, for semantic tool search: a {@link ToolEmbedder} and a
 * bounded cache of its vectors, keyed by a hash (SHA-256) of the model and of the text of a
 * definition (its name's words, its description and its parameters' names). A definition is
 * embedded once, however many turns and catalogs it is part of, until the cache's
 * {@link #capacity()} pushes out the least recently used; a changed definition is a new key.
 * Queries are embedded each search and not cached.
 *
 * <p>Give one to {@link ToolCatalog#of(List, SemanticToolIndex)} (or to the agent loop's and the
 * drone's builders); keep it as long as the application runs, so that its cache outlives turns.
 * Thread-safe: embedding happens under its lock, so two turns never embed the same definition
 * twice. When the model fails, search goes on lexical only, and the failure is logged at WARN
 * once, then at DEBUG.
 */
public final class SemanticToolIndex {
  private static final Logger log = LoggerFactory.getLogger(SemanticToolIndex.class);
  /** The cache's default capacity, in definitions. */
  public static final int DEFAULT_CAPACITY = 4096;
  /** How many texts one request to the model carries at most. */
  public static final int BATCH = 64;
  /** The longest text of a definition embedded, in characters (the rest is left out). */
  public static final int MAX_TEXT = 2000;

  private final ToolEmbedder embedder;
  private final int capacity;
  private final Map<String, float[]> cache;
  private final WarnOnce failures = new WarnOnce(log);
  private long embeddedTexts;

  /** An index over {@code embedder} with a cache of {@link #DEFAULT_CAPACITY} definitions. */
  public SemanticToolIndex(ToolEmbedder embedder) {
    this(embedder, DEFAULT_CAPACITY);
  }

  /** An index over {@code embedder} that caches at most {@code capacity} definitions. */
  public SemanticToolIndex(ToolEmbedder embedder, int capacity) {
    this.embedder = Objects.requireNonNull(embedder, "embedder");
    if (capacity < 1) {
      throw new IllegalArgumentException("the cache holds 1 definition or more; got " + capacity);
    }
    this.capacity = capacity;
    this.cache = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
        return size() > SemanticToolIndex.this.capacity;
      }
    };
  }

  /** The model's name. */
  public String model() {
    return embedder.model();
  }

  /** The most definitions cached. */
  public int capacity() {
    return capacity;
  }

  /** How many definitions are cached now. */
  public synchronized int cached() {
    return cache.size();
  }

  /** How many texts of definitions were sent to the model so far (queries not counted). */
  public synchronized long embeddedTexts() {
    return embeddedTexts;
  }

  /**
   * The vectors of {@code tools}, in order, from the cache or from the model (the missing ones,
   * {@value #BATCH} a request); {@code null} when the model failed.
   */
  synchronized float[][] vectors(List<ToolDefinition> tools) {
    float[][] out = new float[tools.size()][];
    List<String> keys = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < tools.size(); i++) {
      String text = text(tools.get(i));
      String key = key(text);
      float[] v = cache.get(key);
      if (v != null) {
        out[i] = v;
      } else {
        keys.add(key);
        texts.add(text);
        at.add(i);
      }
    }
    for (int from = 0; from < texts.size(); from += BATCH) {
      int to = Math.min(texts.size(), from + BATCH);
      List<float[]> got;
      try {
        got = embedder.embed(texts.subList(from, to));
      } catch (RuntimeException e) {
        failures.log("Tool search goes on without embeddings: {}", "embeddings failed: {}",
            e.getMessage());
        return null;
      }
      embeddedTexts += to - from;
      for (int j = from; j < to; j++) {
        float[] v = normalized(got.get(j - from));
        cache.put(keys.get(j), v);
        out[at.get(j)] = v;
      }
    }
    return out;
  }

  /** The vector of {@code query}, or {@code null} when the model failed. */
  float[] query(String query) {
    try {
      List<float[]> got = embedder.embed(List.of(query));
      return normalized(got.get(0));
    } catch (RuntimeException e) {
      failures.log("Tool search goes on without embeddings: {}", "embeddings failed: {}",
          e.getMessage());
      return null;
    }
  }

  /** The cosine of two vectors {@link #normalized}; 0 when their lengths differ. */
  static float cosine(float[] a, float[] b) {
    if (a.length != b.length) {
      return 0;
    }
    double dot = 0;
    for (int i = 0; i < a.length; i++) {
      dot += a[i] * b[i];
    }
    return (float) dot;
  }

  /** What is embedded of a definition. */
  static String text(ToolDefinition t) {
    StringBuilder sb = new StringBuilder(t.name().replaceAll("[_\\-.]+", " ").strip())
        .append(": ").append(t.description().strip().replaceAll("\\s+", " "));
    List<String> params = new ArrayList<>();
    t.parameters().path("properties").fieldNames().forEachRemaining(params::add);
    if (!params.isEmpty()) {
      sb.append(" (").append(String.join(", ", params)).append(')');
    }
    return sb.length() <= MAX_TEXT ? sb.toString() : sb.substring(0, MAX_TEXT);
  }

  private String key(String text) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(embedder.model().getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      return HexFormat.of().formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  private static float[] normalized(float[] v) {
    double norm = 0;
    for (float x : v) {
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    float[] out = new float[v.length];
    for (int i = 0; i < v.length && norm > 0; i++) {
      out[i] = (float) (v[i] / norm);
    }
    return out;
  }

  @Override
  public String toString() {
    return "SemanticToolIndex{" + embedder.model() + ", " + cached() + " of " + capacity
        + " cached}";
  }
}
