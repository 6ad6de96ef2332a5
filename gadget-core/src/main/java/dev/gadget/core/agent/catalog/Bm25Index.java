package dev.gadget.core.agent.catalog;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A small BM25 index over documents of several weighted fields (BM25F's simple form: a term's
 * frequency in a document is the weighted sum of its frequencies in the fields, and so is the
 * document's length). Built once, immutable, thread-safe; a search touches only the postings of
 * the query's terms, so it takes microseconds at a thousand documents.
 */
final class Bm25Index {
  static final float K1 = 1.2f;
  static final float B = 0.75f;

  /** A document that matched: its index, its BM25 score and its share of the query's idf. */
  record Hit(int doc, float score, float coverage) {}

  private final int size;
  private final Map<String, Integer> termIds = new HashMap<>();
  private final int[][] postingDocs;
  private final float[][] postingTfs;
  private final float[] idf;
  private final float unknownIdf;

  /**
   * Indexes {@code docs}: for each document, the terms of each of its fields, in the order of
   * {@code weights}.
   */
  Bm25Index(List<List<List<String>>> docs, float[] weights) {
    this.size = docs.size();
    int fieldCount = weights.length;
    float[] avgField = new float[fieldCount];
    for (List<List<String>> fields : docs) {
      for (int f = 0; f < fieldCount; f++) {
        avgField[f] += fields.get(f).size();
      }
    }
    for (int f = 0; f < fieldCount; f++) {
      avgField[f] = size == 0 ? 1 : Math.max(1e-6f, avgField[f] / size);
    }
    List<Map<Integer, Float>> tfs = new ArrayList<>();
    List<List<Integer>> postings = new ArrayList<>();
    for (int d = 0; d < size; d++) {
      Map<Integer, Float> tf = new HashMap<>();
      List<List<String>> fields = docs.get(d);
      for (int f = 0; f < fieldCount; f++) {
        // BM25F: a field's occurrences count by its weight, over its length against the average
        // of that field, so a long description does not drown the name
        List<String> field = fields.get(f);
        float each = weights[f] / (1 - B + B * field.size() / avgField[f]);
        for (String term : field) {
          Integer id = termIds.get(term);
          if (id == null) {
            id = termIds.size();
            termIds.put(term, id);
            postings.add(new ArrayList<>());
          }
          if (!tf.containsKey(id)) {
            postings.get(id).add(d);
          }
          tf.merge(id, each, Float::sum);
        }
      }
      tfs.add(tf);
    }
    int terms = termIds.size();
    postingDocs = new int[terms][];
    postingTfs = new float[terms][];
    idf = new float[terms];
    for (int t = 0; t < terms; t++) {
      List<Integer> ds = postings.get(t);
      postingDocs[t] = new int[ds.size()];
      postingTfs[t] = new float[ds.size()];
      for (int i = 0; i < ds.size(); i++) {
        postingDocs[t][i] = ds.get(i);
        postingTfs[t][i] = tfs.get(ds.get(i)).get(t);
      }
      idf[t] = idf(ds.size());
    }
    unknownIdf = idf(0);
  }

  private float idf(int df) {
    return (float) Math.log(1 + (size - df + 0.5) / (df + 0.5));
  }

  /** The number of documents. */
  int size() {
    return size;
  }

  /**
   * The {@code limit} best documents for a query, best first; ties go to the earlier document.
   * Each group is one word of the query: its own term first, then terms it also stands for
   * (synonyms), which score at {@code synonymWeight} of their own weight. A document's coverage
   * is the share of the query's idf it matches: a word's whole idf for its own term, the
   * synonym weight of it for a synonym. A group whose first term is {@code null} stands for a
   * phrase of the query: its terms all score as synonyms, and its idf is the best of theirs.
   * Only documents that share a term with the query.
   */
  List<Hit> search(List<List<String>> groups, int limit, float synonymWeight) {
    float[] scores = new float[size];
    float[] covered = new float[size];
    float[] groupBest = new float[size];
    int[] seenGroup = new int[size];
    int[] touched = new int[size];
    int[] inGroup = new int[size];
    int touchedCount = 0;
    float totalIdf = 0;
    Set<String> done = new HashSet<>();
    int g = 0;
    for (List<String> group : groups) {
      boolean phrase = group.get(0) == null;
      if (!phrase && !done.add(group.get(0))) {
        continue;
      }
      g++;
      float wordIdf = phrase ? phraseIdf(group) : idfOf(group.get(0));
      totalIdf += phrase ? 0 : wordIdf;
      int inGroupCount = 0;
      for (int a = 0; a < group.size(); a++) {
        Integer id = group.get(a) == null ? null : termIds.get(group.get(a));
        if (id == null) {
          continue;
        }
        float weight = a == 0 ? 1f : synonymWeight;
        float w = idf[id] * weight;
        int[] ds = postingDocs[id];
        float[] tf = postingTfs[id];
        for (int i = 0; i < ds.length; i++) {
          int d = ds[i];
          if (seenGroup[d] == 0) { // groups count from 1
            touched[touchedCount++] = d;
          }
          if (seenGroup[d] != g) {
            seenGroup[d] = g;
            inGroup[inGroupCount++] = d;
            covered[d] += wordIdf * weight; // own term first: a synonym never adds more
          }
          // a word counts once: by the best of its own term and the terms it stands for
          groupBest[d] = Math.max(groupBest[d], w * tf[i] * (K1 + 1) / (tf[i] + K1));
        }
      }
      for (int i = 0; i < inGroupCount; i++) {
        int d = inGroup[i];
        scores[d] += groupBest[d];
        groupBest[d] = 0;
      }
    }
    int k = Math.min(limit, touchedCount);
    int[] best = new int[k];
    int found = 0;
    for (int i = 0; i < touchedCount; i++) {
      int d = touched[i];
      int at = found;
      while (at > 0 && better(d, best[at - 1], scores)) {
        at--;
      }
      if (at < k) {
        System.arraycopy(best, at, best, at + 1, Math.min(found, k - 1) - at);
        best[at] = d;
        found = Math.min(k, found + 1);
      }
    }
    List<Hit> hits = new ArrayList<>(found);
    for (int i = 0; i < found; i++) {
      int d = best[i];
      hits.add(new Hit(d, scores[d], totalIdf == 0 ? 0 : Math.min(1f, covered[d] / totalIdf)));
    }
    return hits;
  }

  private float idfOf(String term) {
    Integer id = termIds.get(term);
    return id == null ? unknownIdf : idf[id];
  }

  private float phraseIdf(List<String> group) {
    float best = 0;
    for (int a = 1; a < group.size(); a++) {
      Integer id = termIds.get(group.get(a));
      best = id == null ? best : Math.max(best, idf[id]);
    }
    return best;
  }

  private static boolean better(int a, int b, float[] scores) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  }

  @Override
  public String toString() {
    return "Bm25Index{" + size + " documents, " + termIds.size() + " terms"
        + "}";
  }
}
