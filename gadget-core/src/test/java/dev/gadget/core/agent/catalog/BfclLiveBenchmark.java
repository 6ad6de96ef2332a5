package dev.gadget.core.agent.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.GadgetJson;
import dev.gadget.core.llm.ToolDefinition;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Tool search on requests people wrote (not a test): the "live" sets of the Berkeley Function
 * Calling Leaderboard, whose requests users contributed. The data is not in this repository;
 * the benchmark reads it from a checkout of {@code ShishirPatil/gorilla}:
 *
 * <pre>
 * ./mvnw -B -o -q -pl gadget-core test-compile exec:java \
 *     -Dexec.mainClass=dev.gadget.core.agent.catalog.BfclLiveBenchmark \
 *     -Dexec.classpathScope=test \
 *     -Dbfcl.data=/path/to/gorilla/berkeley-function-call-leaderboard/bfcl_eval/data
 * </pre>
 *
 * <p>The catalog is every function the four live sets offer, pooled and named as gadget-mcp
 * names tools (the first definition of a name kept). Each request is its last user message;
 * it is a hit at top-k when a function its answer calls is among the first k results. Pooling
 * makes some misses ambiguous (ten weather functions, several "find movies"), so the numbers
 * are a floor. Measured on the definitions alone and with {@code catalog/bfcl-live-examples.json}:
 * six example requests a tool, which a model wrote from the prompt {@link ExamplePrompt} gives
 * (the tools' definitions only, never the requests).
 */
public final class BfclLiveBenchmark {
  static final List<String> SETS = List.of("BFCL_v4_live_simple", "BFCL_v4_live_multiple",
      "BFCL_v4_live_parallel", "BFCL_v4_live_parallel_multiple");

  private BfclLiveBenchmark() {}

  /** A request: its words, whether it is in English, and the functions its answer calls. */
  record Request(String text, boolean english, Set<String> right) {}

  /** Runs the benchmark and prints its table. */
  public static void main(String[] args) throws Exception {
    String data = System.getProperty("bfcl.data");
    if (data == null) {
      System.err.println("Give -Dbfcl.data=DIR, the bfcl_eval/data folder of a checkout of "
          + "https://github.com/ShishirPatil/gorilla");
      System.exit(2);
    }
    Map<String, ToolDefinition> tools = new LinkedHashMap<>();
    List<Request> requests = new ArrayList<>();
    for (String set : SETS) {
      read(Path.of(data), set, tools, requests);
    }
    List<ToolDefinition> defs = new ArrayList<>(tools.values());
    ToolCatalog lexical = ToolCatalog.of(defs);
    ToolCatalog withExamples = ToolCatalog.of(defs, null,
        McpCatalogFixture.examples("/catalog/bfcl-live-examples.json"));
    List<Request> english = requests.stream().filter(Request::english).toList();
    row("measure", "all requests / English only");
    row("catalog (functions of the live sets, pooled by name)", defs.size() + " tools");
    row("requests (last user message of each case)", requests.size() + " / " + english.size());
    int[] a = accuracy(lexical, requests);
    int[] e = accuracy(lexical, english);
    row("top-1, definitions alone", pct(a[0], requests.size()) + " / " + pct(e[0], english.size()));
    row("top-5, definitions alone", pct(a[1], requests.size()) + " / " + pct(e[1], english.size()));
    a = accuracy(withExamples, requests);
    e = accuracy(withExamples, english);
    row("top-1, with examples", pct(a[0], requests.size()) + " / " + pct(e[0], english.size()));
    row("top-5, with examples", pct(a[1], requests.size()) + " / " + pct(e[1], english.size()));
  }

  /** Adds the functions and requests of one set (questions and possible answers). */
  static void read(Path data, String set, Map<String, ToolDefinition> tools,
      List<Request> requests) throws IOException {
    Map<String, Set<String>> answers = new HashMap<>();
    for (JsonNode line : lines(data.resolve("possible_answer").resolve(set + ".json"))) {
      Set<String> right = new TreeSet<>();
      line.path("ground_truth").forEach(call -> call.fieldNames()
          .forEachRemaining(name -> right.add(toolName(name))));
      answers.put(line.path("id").asText(), right);
    }
    for (JsonNode line : lines(data.resolve(set + ".json"))) {
      for (JsonNode f : line.path("function")) {
        tools.putIfAbsent(toolName(f.path("name").asText()), new ToolDefinition(
            toolName(f.path("name").asText()), f.path("description").asText(),
            f.path("parameters")));
      }
      String text = "";
      for (JsonNode turn : line.path("question")) {
        for (JsonNode m : turn) {
          if ("user".equals(m.path("role").asText())) {
            text = m.path("content").asText().strip().replaceAll("\\s+", " ");
          }
        }
      }
      Set<String> right = answers.get(line.path("id").asText());
      if (right != null && !right.isEmpty() && !text.isEmpty()) {
        requests.add(new Request(text, english(text), right));
      }
    }
  }

  /** A name as gadget-mcp names tools: not a letter, digit or _ becomes _. */
  static String toolName(String name) {
    return name.replaceAll("[^A-Za-z0-9_]", "_");
  }

  /** Whether at least 97% of the characters are ASCII (some requests are in other languages). */
  static boolean english(String text) {
    long ascii = text.chars().filter(c -> c < 128).count();
    return ascii >= 0.97 * text.length();
  }

  /** Top-1 and top-5 hits of {@code requests} in {@code catalog}. */
  static int[] accuracy(ToolCatalog catalog, List<Request> requests) {
    int top1 = 0;
    int top5 = 0;
    for (Request r : requests) {
      List<String> found = catalog.search(r.text(), 5).stream().map(ToolMatch::name).toList();
      top1 += !found.isEmpty() && r.right().contains(found.get(0)) ? 1 : 0;
      top5 += found.stream().anyMatch(r.right()::contains) ? 1 : 0;
    }
    return new int[] {top1, top5};
  }

  private static List<JsonNode> lines(Path file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null; ) {
        if (!line.isBlank()) {
          out.add(GadgetJson.mapper().readTree(line));
        }
      }
    }
    return out;
  }

  private static void row(String what, String value) {
    System.out.printf(Locale.ROOT, "%-56s %s%n", what, value);
  }

  private static String pct(int part, int whole) {
    return String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
  }
}
