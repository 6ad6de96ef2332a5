package dev.gadget.core.agent.catalog;

import dev.gadget.core.llm.ToolDefinition;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * What embeddings add to {@code search_tools} (not a test; {@link ToolSearchBenchmark} and
 * gadget-bench-embed's {@code EmbeddingBenchmark} run it): over the catalog and request sets of
 * {@link ToolSearchBenchmark}, top-1 and top-5 per set for lexical search alone, for lexical with
 * embeddings (a {@link ToolCatalog} with a {@link SemanticToolIndex}: what Gadget ships) and for
 * the embeddings alone (the tools ranked by cosine only, from the same vectors); the time to embed
 * the catalog and each query; and how many requests the embedding server received, to show that
 * the cache embeds a definition once.
 *
 * <p>With {@code -Dtuning=true} the fourth held-out set is left out, as in
 * {@link ToolSearchBenchmark}.
 */
public final class SemanticSearchBenchmark {
  private static final boolean TUNING = Boolean.getBoolean("tuning");

  private SemanticSearchBenchmark() {}

  /**
   * Measures {@code embedder} and prints to {@code out}; {@code served} says how many requests
   * the embedding server has answered so far ({@code null} when it cannot be told).
   */
  public static void run(ToolEmbedder embedder, LongSupplier served, PrintStream out)
      throws Exception {
    List<ToolDefinition> mcp = McpCatalogFixture.definitions();
    List<String> names = new ArrayList<>(ToolSearchBenchmark.SETS);
    if (TUNING) {
      names = names.subList(0, names.size() - ToolSearchBenchmark.UNSEEN);
    }
    List<List<String[]>> sets = new ArrayList<>();
    for (String name : names) {
      sets.add(ToolSearchBenchmark.requests(name));
    }
    Recording recording = new Recording(embedder);
    SemanticToolIndex index = new SemanticToolIndex(recording);
    long before = served == null ? 0 : served.getAsLong();

    // the catalog's embeddings, as a catalog's first search asks for them (batches of 64)
    long i0 = System.nanoTime();
    float[][] vectors = index.vectors(mcp);
    long indexNanos = System.nanoTime() - i0;
    if (vectors == null) {
      throw new IllegalStateException("the embedding model failed; see the log");
    }
    long indexRequests = served == null ? -1 : served.getAsLong() - before;

    ToolCatalog lexical = ToolCatalog.of(mcp);
    ToolCatalog hybrid = ToolCatalog.of(mcp, index);
    int queries = 0;
    long textsBefore = index.embeddedTexts();
    long afterIndex = served == null ? 0 : served.getAsLong();
    List<Long> searchNanos = new ArrayList<>();
    int[][] result = new int[sets.size()][6];
    for (int s = 0; s < sets.size(); s++) {
      for (String[] r : sets.get(s)) {
        List<String> right = ToolSearchBenchmark.rightTools(r[1]);
        count(result[s], 0, right, names(lexical.search(r[0], 5)));
        long t0 = System.nanoTime();
        List<ToolMatch> found = hybrid.search(r[0], 5);
        searchNanos.add(System.nanoTime() - t0);
        count(result[s], 2, right, names(found));
        float[] q = recording.vectorOf(r[0]);
        count(result[s], 4, right, q == null ? List.of() : byCosine(mcp, vectors, q));
        queries++;
      }
    }
    long runRequests = served == null ? -1 : served.getAsLong() - afterIndex;
    long reembedded = index.embeddedTexts() - textsBefore;

    // a later turn builds a new catalog over the same index: only its query is embedded
    long b0 = served == null ? 0 : served.getAsLong();
    ToolCatalog.of(mcp, index).search("open an issue on github", 5);
    long nextTurnRequests = served == null ? -1 : served.getAsLong() - b0;

    out.println("embedding model: " + embedder.model() + " (" + vectors[0].length
        + " dimensions), load average " + loadAverage());
    out.printf(Locale.ROOT, "%-26s %5s  %-15s %-22s %-15s%n", "set", "n",
        "lexical 1/5", "lexical+embed. 1/5", "embed. alone 1/5");
    int[] all = new int[6];
    int total = 0;
    for (int s = 0; s < sets.size(); s++) {
      int n = sets.get(s).size();
      total += n;
      for (int k = 0; k < 6; k++) {
        all[k] += result[s][k];
      }
      line(out, names.get(s), n, result[s]);
    }
    line(out, "all", total, all);
    Collections.sort(searchNanos);
    List<Long> queryNanos = recording.queryNanos();
    out.printf(Locale.ROOT, "embedding the catalog (%d tools): %.0f ms in %s requests%n",
        mcp.size(), indexNanos / 1e6, indexRequests < 0 ? "?" : indexRequests);
    out.printf(Locale.ROOT, "embedding one query (HTTP round trip): median %.1f ms, p99 %.1f ms;"
        + " search with embeddings: median %.1f ms, p99 %.1f ms%n",
        pct(queryNanos, 0.5) / 1e6, pct(queryNanos, 0.99) / 1e6,
        pct(searchNanos, 0.5) / 1e6, pct(searchNanos, 0.99) / 1e6);
    out.printf(Locale.ROOT, "requests during %d searches: %s (tool texts embedded again: %d);"
        + " a new catalog over the same index, one search: %s request(s)%n", queries,
        runRequests < 0 ? "?" : runRequests, reembedded,
        nextTurnRequests < 0 ? "?" : nextTurnRequests);
  }

  private static void line(PrintStream out, String set, int n, int[] r) {
    out.printf(Locale.ROOT, "%-26s %5d  %-15s %-22s %-15s%n", set, n,
        pair(r[0], r[1], n), pair(r[2], r[3], n), pair(r[4], r[5], n));
  }

  private static String pair(int top1, int top5, int n) {
    return String.format(Locale.ROOT, "%.1f / %.1f", 100.0 * top1 / n, 100.0 * top5 / n);
  }

  private static void count(int[] into, int at, List<String> right, List<String> found) {
    into[at] += !found.isEmpty() && right.contains(found.get(0)) ? 1 : 0;
    into[at + 1] += found.stream().limit(5).anyMatch(right::contains) ? 1 : 0;
  }

  private static List<String> names(List<ToolMatch> matches) {
    return matches.stream().map(ToolMatch::name).toList();
  }

  /** The five tools whose vectors are nearest {@code q}, best first. */
  private static List<String> byCosine(List<ToolDefinition> tools, float[][] vectors,
      float[] q) {
    Integer[] order = new Integer[tools.size()];
    float[] cos = new float[tools.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
      // the query's length does not change the order: no need to normalize it
      cos[i] = SemanticToolIndex.cosine(q, vectors[i]);
    }
    Arrays.sort(order, (a, b) -> Float.compare(cos[b], cos[a]));
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 5 && i < order.length; i++) {
      out.add(tools.get(order[i]).name());
    }
    return out;
  }

  private static long pct(List<Long> sorted, double p) {
    List<Long> s = new ArrayList<>(sorted);
    Collections.sort(s);
    return s.isEmpty() ? 0 : s.get(Math.min(s.size() - 1, (int) (s.size() * p)));
  }

  private static String loadAverage() {
    try {
      String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg"))
          .split(" ");
      return f[0] + " " + f[1] + " " + f[2] + " on "
          + Runtime.getRuntime().availableProcessors() + " cores";
    } catch (Exception e) {
      return "unknown";
    }
  }

  /**
   * {@code embedder} as it is, remembering the vector of each single text it was asked for (a
   * search's query) and how long that took, so the embeddings alone are ranked without asking
   * the model again.
   */
  private static final class Recording implements ToolEmbedder {
    private final ToolEmbedder embedder;
    private final Map<String, float[]> queries = new ConcurrentHashMap<>();
    private final List<Long> queryNanos = Collections.synchronizedList(new ArrayList<>());

    Recording(ToolEmbedder embedder) {
      this.embedder = embedder;
    }

    @Override
    public String model() {
      return embedder.model();
    }

    @Override
    public List<float[]> embed(List<String> texts) {
      long t0 = System.nanoTime();
      List<float[]> got = embedder.embed(texts);
      if (texts.size() == 1) {
        queryNanos.add(System.nanoTime() - t0);
        queries.put(texts.get(0), got.get(0));
      }
      return got;
    }

    float[] vectorOf(String query) {
      return queries.get(query);
    }

    List<Long> queryNanos() {
      return new ArrayList<>(queryNanos);
    }
  }
}
