package dev.gadget.core.agent.catalog;

import dev.gadget.core.agent.AgentLoop;
import dev.gadget.core.agent.AgentRequest;
import dev.gadget.core.agent.Tool;
import dev.gadget.core.agent.tools.CodingTools;
import dev.gadget.core.llm.LlmRequest;
import dev.gadget.core.llm.ScriptedLlmClient;
import dev.gadget.core.llm.ToolDefinition;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Measures {@code search_tools} (not a test): accuracy, the tokens deferral saves, and the time
 * of a search.
 *
 * <pre>
 * ./mvnw -B -o -q -pl gadget-core test-compile exec:java \
 *     -Dexec.mainClass=dev.gadget.core.agent.catalog.ToolSearchBenchmark \
 *     -Dexec.classpathScope=test
 * </pre>
 *
 * <ul>
 *   <li><b>Accuracy</b>: the 304 tool definitions of 18 MCP servers from npm
 *       ({@code catalog/mcp-tools.json}) and the labelled requests of
 *       {@code catalog/requests.tsv} and of six sets first held out
 *       ({@code requests-held-out.tsv} to {@code requests-held-out-6.tsv}), written as a user
 *       would ask. The first four held-out sets have been looked at (tuned on); the fifth and
 *       sixth, written by others who had not read the index, are unseen. Each is measured on
 *       the definitions alone and with the six model-written examples a tool of
 *       {@code catalog/tool-examples.json} ({@link ToolExamples};
 *       {@code -Dexamples.perTool=K} keeps K of them, {@link McpCatalogFixture#examples(String)}).
 *       A request is a hit at top-k when one of its right tools is among the first k results.
 *       Only the misses of the first set are listed.
 *   <li><b>Tokens</b>: the tool definitions of a turn's first request (the coding tools and
 *       {@code search_tools}, as a real {@link AgentLoop} sends them) against all of them, and
 *       what one search's five loaded definitions add, estimated as the loop measures (three
 *       characters a token).
 *   <li><b>Embeddings</b>: with {@code -Dembed.model=NAME} (and {@code -Dembed.url},
 *       {@code -Dembed.api=openai}), {@link SemanticSearchBenchmark} over that model: the same
 *       accuracy with {@link SemanticToolIndex}, the time to embed. gadget-bench-embed runs it
 *       against local models of its own.
 *   <li><b>Time</b>: a catalog of 1,000 tools (the 304, copied under other server names), every
 *       request searched after a warm-up; mean and 99th percentile per search, and the time to
 *       build the index.
 * </ul>
 */
public final class ToolSearchBenchmark {
  /**
   * {@code -Dtuning=true}: only the requests that may be tuned on (every set but the last
   * {@link #UNSEEN}), their accuracy and every top-1 and top-5 miss; the unseen sets' numbers are
   * not shown.
   */
  private static final boolean TUNING = Boolean.getBoolean("tuning");
  /** The request sets, the one tuned on first and the unseen fifth and sixth held-out sets last. */
  static final List<String> SETS = List.of("requests.tsv", "requests-held-out.tsv",
      "requests-held-out-2.tsv", "requests-held-out-3.tsv", "requests-held-out-4.tsv",
      "requests-held-out-5.tsv", "requests-held-out-6.tsv");
  /** How many sets, last in {@link #SETS}, nobody who tuned has looked at. */
  static final int UNSEEN = 2;

  private ToolSearchBenchmark() {}

  /** Runs the benchmark and prints its table. */
  public static void main(String[] args) throws Exception {
    List<ToolDefinition> mcp = McpCatalogFixture.definitions();
    List<List<String[]>> sets = new ArrayList<>();
    for (String name : SETS) {
      sets.add(requests(name));
    }
    ToolCatalog catalog = ToolCatalog.of(mcp);
    ToolCatalog withExamples = ToolCatalog.of(mcp, null, McpCatalogFixture.examples());
    List<String> misses = new ArrayList<>();
    int[][] hits = new int[sets.size()][];
    int[][] exampleHits = new int[sets.size()][];
    for (int i = 0; i < sets.size(); i++) {
      // the held-out sets' misses are not printed: who tunes must not see them
      hits[i] = accuracy(catalog, sets.get(i), i == 0 ? misses : null);
      exampleHits[i] = accuracy(withExamples, sets.get(i), null);
    }

    List<Tool> tools = new ArrayList<>(CodingTools.all());
    tools.addAll(McpCatalogFixture.tools(McpCatalogFixture.calls()));
    int all = 0;
    for (Tool t : tools) {
      all += ToolCatalog.estimateTokens(t.definition());
    }
    LlmRequest first = firstRequest(tools);
    int sent = 0;
    for (ToolDefinition d : first.tools()) {
      sent += ToolCatalog.estimateTokens(d);
    }
    List<Integer> perSearch = new ArrayList<>();
    List<String[]> every = new ArrayList<>();
    sets.forEach(every::addAll);
    for (String[] r : every) {
      int sum = 0;
      for (ToolMatch m : catalog.search(r[0], 5)) {
        sum += catalog.tokens(m.name());
      }
      perSearch.add(sum);
    }
    perSearch.sort(null);

    List<ToolDefinition> thousand = new ArrayList<>();
    for (int copy = 0; thousand.size() < 1000; copy++) {
      for (ToolDefinition d : mcp) {
        if (thousand.size() == 1000) {
          break;
        }
        thousand.add(copy == 0 ? d
            : new ToolDefinition("copy" + copy + d.name(), d.description(), d.parameters()));
      }
    }
    long coldStart = System.nanoTime();
    ToolCatalog.of(thousand);
    long coldNanos = System.nanoTime() - coldStart;
    for (int i = 0; i < 10; i++) {
      ToolCatalog.of(thousand);
    }
    long b0 = System.nanoTime();
    ToolCatalog big = ToolCatalog.of(thousand);
    long buildNanos = System.nanoTime() - b0;
    for (int i = 0; i < 200; i++) { // warm-up
      for (String[] r : every) {
        big.search(r[0], 5);
      }
    }
    int rounds = 50;
    long[] times = new long[rounds * every.size()];
    int n = 0;
    for (int i = 0; i < rounds; i++) {
      for (String[] r : every) {
        long t0 = System.nanoTime();
        big.search(r[0], 5);
        times[n++] = System.nanoTime() - t0;
      }
    }
    Arrays.sort(times);
    double mean = Arrays.stream(times).average().orElse(0) / 1000.0;

    if (TUNING) {
      // every held-out set but the unseen ones has been looked at: they may be tuned on now
      List<String[]> open = new ArrayList<>();
      sets.subList(0, sets.size() - UNSEEN).forEach(open::addAll);
      List<String> openMisses = new ArrayList<>();
      int[] o = accuracy(catalog, open, openMisses);
      int[] e = accuracy(withExamples, open, null);
      System.out.println("requests that may be tuned on (" + open.size() + "), with the "
          + "examples: top-1 " + pct(e[0], open.size()) + ", top-5 " + pct(e[1], open.size()));
      System.out.println("requests that may be tuned on (" + open.size() + "): top-1 "
          + pct(o[0], open.size()) + ", top-5 " + pct(o[1], open.size()) + "; top-5 misses:");
      openMisses.forEach(System.out::println);
      return;
    }
    System.out.printf(Locale.ROOT, "%-58s %s%n", "measure", "value");
    row("catalog", mcp.size() + " MCP tools of 18 npm servers");
    StringBuilder sizes = new StringBuilder();
    for (int i = 0; i < sets.size(); i++) {
      sizes.append(i == 0 ? "" : " + ").append(sets.get(i).size());
    }
    row("labelled requests (tuned on + held out 1 to " + (sets.size() - 1) + ")",
        sizes.toString());
    String[] lexical = perSet(sets, hits);
    row("top-1 accuracy, tuned on / held out 1 to " + (sets.size() - 1) + " / all", lexical[0]);
    row("top-5 accuracy, same (target >= 90%)", lexical[1]);
    String[] examples = perSet(sets, exampleHits);
    row("top-1 with model-written examples (tool-examples.json)", examples[0]);
    row("top-5 with model-written examples, same", examples[1]);
    row("tool tokens, all loaded (8 coding + " + mcp.size() + ")", String.valueOf(all));
    row("tool tokens, first request (" + first.tools().size() + " tools)", sent + " ("
        + pct(sent, all) + ", target <= 15%)");
    row("tokens one search loads (5 tools; median, max)", perSearch.get(perSearch.size() / 2)
        + ", " + perSearch.get(perSearch.size() - 1));
    // appending after the tools, which providers render before the messages, ends the cached
    // prefix where the tools did: what follows is processed again, once per load (the other
    // ways of loading process nothing again: ToolLoadingBenchmark)
    int opening = dev.gadget.core.agent.ContextPruner.estimateTokens(first.messages());
    row("re-processed by an appending load in a turn's 2nd request", opening + " (system "
        + "prompt and messages) + the loaded definitions");
    row("index build, 1,000 tools (first, warm)", String.format(Locale.ROOT, "%.1f ms, %.1f ms",
        coldNanos / 1e6, buildNanos / 1e6));
    row("search time per query, 1,000 tools (target < 1 ms)", String.format(Locale.ROOT,
        "median %.1f µs, p99 %.1f µs, mean %.1f µs", times[times.length / 2] / 1000.0,
        times[(int) (times.length * 0.99)] / 1000.0, mean));
    String embedModel = System.getProperty("embed.model");
    if (embedModel == null) {
      row("with embeddings", "not measured here: -Dembed.model, or gadget-bench-embed "
          + "(docs/TOOL-SEARCH.md)");
    } else {
      java.net.URI url = java.net.URI.create(System.getProperty("embed.url",
          HttpToolEmbedder.OLLAMA_DEFAULT.toString()));
      ToolEmbedder embedder = "openai".equals(System.getProperty("embed.api"))
          ? HttpToolEmbedder.openAi(url, embedModel, System.getenv("OPENAI_API_KEY"))
          : HttpToolEmbedder.ollama(url, embedModel);
      System.out.println();
      SemanticSearchBenchmark.run(embedder, null, System.out);
    }
    System.out.println();
    System.out.println("top-5 misses of the requests tuned on (" + misses.size() + "):");
    misses.forEach(System.out::println);
  }

  /** Top-1 and top-5 accuracy of each set and of all, as {@code "a% / b% / … / all%"}. */
  private static String[] perSet(List<List<String[]>> sets, int[][] hits) {
    StringBuilder top1 = new StringBuilder();
    StringBuilder top5 = new StringBuilder();
    int[] total = new int[3];
    for (int i = 0; i < sets.size(); i++) {
      top1.append(pct(hits[i][0], sets.get(i).size())).append(" / ");
      top5.append(pct(hits[i][1], sets.get(i).size())).append(" / ");
      total[0] += sets.get(i).size();
      total[1] += hits[i][0];
      total[2] += hits[i][1];
    }
    return new String[] {top1 + pct(total[1], total[0]), top5 + pct(total[2], total[0])};
  }

  private static void row(String what, String value) {
    System.out.printf(Locale.ROOT, "%-58s %s%n", what, value);
  }

  private static String pct(int part, int whole) {
    return String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
  }

  /**
   * Top-1 and top-5 hits of {@code requests}; each top-5 miss is added to {@code misses} unless
   * it is {@code null} (a held-out set, whose misses who tunes must not see).
   */
  private static int[] accuracy(ToolCatalog catalog, List<String[]> requests,
      List<String> misses) {
    int top1 = 0;
    int top5 = 0;
    for (String[] r : requests) {
      List<String> right = rightTools(r[1]);
      List<String> found = catalog.search(r[0], 5).stream().map(ToolMatch::name).toList();
      top1 += !found.isEmpty() && right.contains(found.get(0)) ? 1 : 0;
      if (TUNING && misses != null && !found.isEmpty() && !right.contains(found.get(0))) {
        System.out.println("top-1 miss: \"" + r[0] + "\" wants " + r[1] + "; got " + found);
      }
      if (found.stream().anyMatch(right::contains)) {
        top5++;
      } else if (misses != null) {
        misses.add("  \"" + r[0] + "\" wants " + r[1] + "; got " + found);
      }
    }
    return new int[] {top1, top5};
  }

  /** The right tools of a request's second column, named as gadget-mcp names them. */
  static List<String> rightTools(String column) {
    // not a letter, digit or _ becomes _
    return Arrays.asList(column.replaceAll("[^A-Za-z0-9_,]", "_").split(","));
  }

  /** The requests of {@code catalog/FILE}: each its words and its right tools. */
  static List<String[]> requests(String file) throws Exception {
    List<String[]> out = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        ToolSearchBenchmark.class.getResourceAsStream("/catalog/" + file),
        StandardCharsets.UTF_8))) {
      for (String line; (line = in.readLine()) != null; ) {
        if (!line.isBlank() && !line.startsWith("#")) {
          out.add(line.split("\t"));
        }
      }
    }
    return out;
  }

  /** The first request of a real turn with {@code tools} and the default deferral. */
  private static LlmRequest firstRequest(List<Tool> tools) throws Exception {
    Path dir = Files.createTempDirectory("tool-search-bench");
    try {
      ScriptedLlmClient llm = ScriptedLlmClient.of(ScriptedLlmClient.reply().text("ok").build());
      AgentLoop loop = AgentLoop.builder().llmClient(llm).tools(tools).build();
      loop.start(AgentRequest.builder(dir, "m", "hello").build()).outcome()
          .get(20, TimeUnit.SECONDS);
      return llm.requests().get(0);
    } finally {
      Files.deleteIfExists(dir);
    }
  }
}
