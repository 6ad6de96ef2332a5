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
  private final float[] lengthNorm;
  private final float unknownIdf;

  /**
   * Indexes {@code docs}: for each document, the terms of each of its fields, in the order of
   * {@code weights}.
   */
  Bm25Index(List<List<List<String>>> docs, float[] weights) {
    this.size = docs.size();
    List<Map<Integer, Float>> tfs = new ArrayList<>();
    List<List<Integer>> postings = new ArrayList<>();
    float[] lengths = new float[size];
    for (int d = 0; d < size; d++) {
      Map<Integer, Float> tf = new HashMap<>();
      List<List<String>> fields = docs.get(d);
      for (int f = 0; f < fields.size(); f++) {
        for (String term : fields.get(f)) {
          Integer id = termIds.get(term);
          if (id == null) {
            id = termIds.size();
            termIds.put(term, id);
            postings.add(new ArrayList<>());
          }
          if (!tf.containsKey(id)) {
            postings.get(id).add(d);
          }
          tf.merge(id, weights[f], Float::sum);
          lengths[d] += weights[f];
        }
      }
      tfs.add(tf);
    }
    float avg = 0;
    for (float l : lengths) {
      avg += l;
    }
    avg = size == 0 ? 1 : Math.max(1e-6f, avg / size);
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
    lengthNorm = new float[size];
    for (int d = 0; d < size; d++) {
      lengthNorm[d] = K1 * (1 - B + B * lengths[d] / avg);
    }
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
   * synonym weight of it for a synonym. Only documents that share a term with the query.
   */
  List<Hit> search(List<List<String>> groups, int limit, float synonymWeight) {
    float[] scores = new float[size];
    float[] covered = new float[size];
    int[] seenGroup = new int[size];
    int[] touched = new int[size];
    int touchedCount = 0;
    float totalIdf = 0;
    Set<String> done = new HashSet<>();
    int g = 0;
    for (List<String> group : groups) {
      if (!done.add(group.get(0))) {
        continue;
      }
      g++;
      Integer own = termIds.get(group.get(0));
      float wordIdf = own == null ? unknownIdf : idf[own];
      totalIdf += wordIdf;
      for (int a = 0; a < group.size(); a++) {
        Integer id = termIds.get(group.get(a));
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
          scores[d] += w * tf[i] * (K1 + 1) / (tf[i] + lengthNorm[d]);
          if (seenGroup[d] != g) {
            seenGroup[d] = g;
            covered[d] += wordIdf * weight; // own term first: a synonym never adds more
          }
        }
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

  private static boolean better(int a, int b, float[] scores) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  }

  @Override
  public String toString() {
    return "Bm25Index{" + size + " documents, " + termIds.size() + " terms"
        + "}";
  }
}
