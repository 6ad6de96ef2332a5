package dev.gadget.core.agent.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.agent.ContextPruner;
import dev.gadget.core.llm.ToolDefinition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Every tool an agent loop may offer (built-in, annotated methods, MCP servers'), indexed for
 * search with BM25 over three fields: the name (split at {@code _}, {@code __} and camelCase
 * humps), the description, and the parameters' names and descriptions, weighted
 * {@value #NAME_WEIGHT} : {@value #DESCRIPTION_WEIGHT} : {@value #PARAMETER_WEIGHT}. A query that
 * names a tool (its whole name, or an MCP tool's name without its server prefix) finds it first.
 *
 * <p>Immutable and thread-safe; built in a few milliseconds for a thousand tools, searched in
 * microseconds. Pure Java, inside {@code gadget-core}: no search library needed.
 */
public final class ToolCatalog {
  /** The weight of a tool's name in its score. */
  public static final float NAME_WEIGHT = 3f;
  /** The weight of its description. */
  public static final float DESCRIPTION_WEIGHT = 1f;
  /** The weight of its parameters' names and descriptions. */
  public static final float PARAMETER_WEIGHT = 0.25f;
  /** The weight of its examples ({@link ToolExamples}), when it has any. */
  public static final float EXAMPLE_WEIGHT = 1f;
  /** What a synonym of a query's word weighs against the word itself. */
  public static final float SYNONYM_WEIGHT = 0.5f;
  private static final java.util.regex.Pattern WORDS =
      java.util.regex.Pattern.compile("[\\s,;`\"'()]+");
  /** A file's name with a common extension, such as {@code report.txt} or {@code app.py}. */
  private static final java.util.regex.Pattern FILE_NAME = java.util.regex.Pattern.compile(
      "\\b[\\w-]+\\.(txt|md|json|ya?ml|csv|log|pdf|png|jpe?g|gif|svg|html?|css|js|ts|py|java|"
          + "xml|toml|ini|sh|sql|zip|gz|tar)\\b", java.util.regex.Pattern.CASE_INSENSITIVE);
  /** The longest one-line summary of a description. */
  public static final int SUMMARY_LENGTH = 160;

  private final List<ToolDefinition> tools;
  private final Map<String, Integer> byName = new HashMap<>();
  private final Map<String, Integer> byLowerName = new HashMap<>();
  private final Map<String, Integer> byShortName = new HashMap<>();
  private final int[] tokens;
  private final String[] summaries;
  private final Bm25Index index;
  private final SemanticToolIndex semantic;
  private volatile float[][] vectors;
  private volatile boolean semanticFailed;

  private ToolCatalog(List<ToolDefinition> tools, SemanticToolIndex semantic,
      ToolExamples examples) {
    this.tools = List.copyOf(tools);
    this.semantic = semantic;
    List<List<List<String>>> docs = new ArrayList<>(this.tools.size());
    this.tokens = new int[this.tools.size()];
    this.summaries = new String[this.tools.size()];
    examples.expect(this.tools);
    for (int i = 0; i < this.tools.size(); i++) {
      ToolDefinition t = this.tools.get(i);
      if (byName.put(t.name(), i) != null) {
        throw new IllegalArgumentException("two tools are named " + t.name());
      }
      // names that differ only in case name neither, in any case
      byLowerName.merge(t.name().toLowerCase(Locale.ROOT), i, (a, b) -> -1);
      int cut = t.name().indexOf("__");
      if (cut > 0) {
        // an MCP tool's own name: ambiguous between two servers, then it names neither
        byShortName.merge(t.name().substring(cut + 2).toLowerCase(Locale.ROOT), i,
            (a, b) -> -1);
      }
      StringBuilder params = new StringBuilder();
      parameterText(t.parameters(), params, 0);
      docs.add(List.of(Tokenizer.terms(t.name()), Tokenizer.terms(t.description()),
          Tokenizer.terms(params.toString()), Tokenizer.terms(exampleText(examples, t))));
      tokens[i] = estimateTokens(t);
      summaries[i] = summary(t.description());
    }
    this.index = new Bm25Index(docs,
        new float[] {NAME_WEIGHT, DESCRIPTION_WEIGHT, PARAMETER_WEIGHT, EXAMPLE_WEIGHT});
  }

  /** {@code tool}'s examples as one text, at most {@link ToolExamples#MAX_CHARS}. */
  private static String exampleText(ToolExamples examples, ToolDefinition tool) {
    StringBuilder sb = new StringBuilder();
    for (String e : examples.of(tool)) {
      if (sb.length() + e.length() > ToolExamples.MAX_CHARS) {
        break;
      }
      sb.append(e).append('\n');
    }
    return sb.toString();
  }

  /**
   * A catalog of {@code tools}, in order.
   *
   * @throws IllegalArgumentException if two tools have the same name
   */
  public static ToolCatalog of(List<ToolDefinition> tools) {
    return new ToolCatalog(tools, null, ToolExamples.NONE);
  }

  /**
   * A catalog of {@code tools}, in order, whose search also ranks by meaning: each tool's
   * embedding (from {@code semantic}'s cache, or asked of its model at the first search) against
   * the query's, fused with the BM25 ranking by reciprocal rank ({@link HybridRanking}). When
   * {@code semantic} is {@code null}, or its model fails, search is lexical only.
   *
   * @throws IllegalArgumentException if two tools have the same name
   */
  public static ToolCatalog of(List<ToolDefinition> tools, SemanticToolIndex semantic) {
    return new ToolCatalog(tools, semantic, ToolExamples.NONE);
  }

  /**
   * As {@link #of(List, SemanticToolIndex)}, each tool also indexed with its {@code examples}
   * (a fourth field, weighted {@value #EXAMPLE_WEIGHT}): requests worded as users ask, which
   * its definition may share no word with.
   *
   * @throws IllegalArgumentException if two tools have the same name
   */
  public static ToolCatalog of(List<ToolDefinition> tools, SemanticToolIndex semantic,
      ToolExamples examples) {
    return new ToolCatalog(tools, semantic, java.util.Objects.requireNonNull(examples,
        "examples"));
  }

  /** Whether its search also ranks by embeddings (it was given a {@link SemanticToolIndex}). */
  public boolean semantic() {
    return semantic != null;
  }

  /** How many tools it holds. */
  public int size() {
    return tools.size();
  }

  /** Its tools, in order. */
  public List<ToolDefinition> definitions() {
    return tools;
  }

  /** The tool named {@code name} (or so named in another case, when only one is). */
  public Optional<ToolDefinition> get(String name) {
    Integer i = index(name);
    return i == null ? Optional.empty() : Optional.of(tools.get(i));
  }

  /** The estimated tokens of {@code name}'s definition, or 0 when there is no such tool. */
  public int tokens(String name) {
    Integer i = index(name);
    return i == null ? 0 : tokens[i];
  }

  private Integer index(String name) {
    Integer i = byName.get(name);
    if (i == null) {
      i = byLowerName.get(name.toLowerCase(Locale.ROOT));
    }
    return i == null || i < 0 ? null : i;
  }

  /** The estimated tokens of every definition. */
  public int tokens() {
    int sum = 0;
    for (int t : tokens) {
      sum += t;
    }
    return sum;
  }

  /** The {@code limit} tools that best match {@code query}, best first. */
  public List<ToolMatch> search(String query, int limit) {
    return search(query, limit, name -> true);
  }

  /**
   * The {@code limit} tools among those {@code include} accepts that best match {@code query},
   * best first: a tool the query names (its whole name, or an MCP tool's name without the
   * server prefix, as a word of the query written as a name, or the whole query), then by BM25
   * score, fused with the embeddings' ranking when the catalog has them. Empty when no tool
   * shares a word with the query (and, with embeddings, never).
   */
  public List<ToolMatch> search(String query, int limit, Predicate<String> include) {
    if (limit < 1) {
      throw new IllegalArgumentException("a search returns 1 tool or more; got " + limit);
    }
    Map<Integer, ToolMatch> found = new LinkedHashMap<>();
    String[] words = WORDS.split(query.trim());
    for (String word : words) {
      // an ordinary word ("find", "count") names a tool only when it is the whole query
      Integer i = words.length == 1 || identifier(word) ? named(word) : null;
      if (i != null && found.size() < limit && include.test(tools.get(i).name())) {
        found.put(i, match(i, Double.POSITIVE_INFINITY, 1.0));
      }
    }
    if (found.size() < limit) {
      float[] cosines = cosines(query);
      int excluded = 0;
      for (ToolDefinition t : tools) {
        excluded += include.test(t.name()) ? 0 : 1;
      }
      List<Bm25Index.Hit> hits = lexical(query,
          cosines != null ? tools.size() : limit + excluded + found.size());
      List<Bm25Index.Hit> ranked = cosines == null ? hits
          : HybridRanking.fuse(hits, cosines, d -> include.test(tools.get(d).name()));
      for (Bm25Index.Hit hit : ranked) {
        if (found.size() >= limit) {
          break;
        }
        if (!found.containsKey(hit.doc()) && include.test(tools.get(hit.doc()).name())) {
          found.put(hit.doc(), match(hit.doc(), hit.score(), hit.coverage()));
        }
      }
    }
    return Collections.unmodifiableList(new ArrayList<>(found.values()));
  }

  /** The BM25 hits of {@code query}, at most {@code max}, best first. */
  private List<Bm25Index.Hit> lexical(String query, int max) {
    List<List<String>> groups = new ArrayList<>();
    List<String> terms = Tokenizer.terms(query);
    terms.addAll(Tokenizer.terms(String.join(" ", Synonyms.phrases(query))));
    if (FILE_NAME.matcher(query).find()) {
      terms.add(Tokenizer.stem("file")); // a request that names a file is about a file
    }
    for (String term : terms) {
      List<String> group = new ArrayList<>();
      group.add(term);
      group.addAll(Synonyms.of(term));
      for (String s : Thesaurus.DEFAULT.of(term)) {
        if (!group.contains(s)) {
          group.add(s);
        }
      }
      groups.add(group);
    }
    for (List<String> stands : Thesaurus.DEFAULT.phrases(query)) {
      List<String> group = new ArrayList<>();
      group.add(null); // a phrase: no word of its own
      group.addAll(stands);
      groups.add(group);
    }
    return index.search(groups, max, SYNONYM_WEIGHT);
  }

  /**
   * Each tool's cosine with {@code query}, when this catalog has embeddings; {@code null} without
   * (or when the model failed: then not asked again by this catalog).
   */
  private float[] cosines(String query) {
    if (semantic == null || semanticFailed) {
      return null;
    }
    float[][] v = vectors;
    if (v == null) {
      synchronized (this) {
        v = vectors == null ? semantic.vectors(tools) : vectors;
        vectors = v;
      }
    }
    float[] q = v == null ? null : semantic.query(query);
    if (q == null) {
      semanticFailed = true;
      return null;
    }
    float[] out = new float[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = SemanticToolIndex.cosine(q, v[i]);
    }
    return out;
  }

  /** Whether {@code word} is written as a name in code: {@code get_issue}, {@code getIssue}. */
  private static boolean identifier(String word) {
    for (int i = 0; i < word.length(); i++) {
      char c = word.charAt(i);
      if (c == '_' || c == '-' || Character.isDigit(c)
          || (i > 0 && Character.isUpperCase(c) && Character.isLowerCase(word.charAt(i - 1)))) {
        return true;
      }
    }
    return false;
  }

  private Integer named(String word) {
    if (word.isEmpty()) {
      return null;
    }
    Integer i = index(word);
    if (i == null) {
      i = byShortName.get(word.toLowerCase(Locale.ROOT));
    }
    return i == null || i < 0 ? null : i;
  }

  private ToolMatch match(int i, double score, double similarity) {
    ToolDefinition t = tools.get(i);
    return new ToolMatch(t.name(), summaries[i], score,
        Math.round(similarity * 100) / 100.0);
  }

  /**
   * The first sentence of {@code description} on one line, at most {@value #SUMMARY_LENGTH}
   * characters (cut with an ellipsis).
   */
  public static String summary(String description) {
    String flat = description.strip().replaceAll("\\s+", " ");
    int end = flat.length();
    for (int i = 0; i + 1 < flat.length(); i++) {
      char c = flat.charAt(i);
      if ((c == '.' || c == '!' || c == '?') && flat.charAt(i + 1) == ' ' && i >= 20) {
        end = i + 1;
        break;
      }
    }
    String s = flat.substring(0, end);
    return s.length() <= SUMMARY_LENGTH ? s : s.substring(0, SUMMARY_LENGTH - 1) + "…";
  }

  /**
   * The estimated tokens of a definition as the loop measures it: its name, description and
   * schema at three characters a token ({@link ContextPruner#estimateTokens}).
   */
  public static int estimateTokens(ToolDefinition t) {
    return ContextPruner.estimateTokens((long) t.name().length() + t.description().length()
        + t.parameters().toString().length());
  }

  /** The names and descriptions of a schema's properties, nested ones too (to depth 3). */
  private static void parameterText(JsonNode schema, StringBuilder out, int depth) {
    if (schema == null || depth > 3) {
      return;
    }
    JsonNode props = schema.path("properties");
    props.fieldNames().forEachRemaining(name -> {
      JsonNode p = props.get(name);
      out.append(name).append(' ').append(p.path("description").asText("")).append(' ');
      parameterText(p, out, depth + 1);
      parameterText(p.path("items"), out, depth + 1);
    });
  }

  @Override
  public String toString() {
    return "ToolCatalog{" + tools.size() + " tools}";
  }
}
