package dev.gadget.core.agent.catalog;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * Fuses the BM25 ranking with the embeddings' by reciprocal rank (Cormack, Clarke and Büttcher,
 * 2009): a tool scores {@code 1/(K + rank)} in each ranking it is in, {@value #K} the constant of
 * that paper, so neither ranking's scale matters and a tool high in both wins. The embeddings
 * rank only their best {@value #SEMANTIC_DEPTH}. A fused hit's coverage is the larger of its
 * lexical coverage and its cosine (from 0): "how much of the query the tool covers", by words or
 * by meaning. Pure.
 */
final class HybridRanking {
  static final int K = 60;
  static final int SEMANTIC_DEPTH = 50;

  private HybridRanking() {}

  /**
   * {@code lexical} (best first) fused with {@code cosines} (one per tool), among the tools
   * {@code include} accepts; best first.
   */
  static List<Bm25Index.Hit> fuse(List<Bm25Index.Hit> lexical, float[] cosines,
      IntPredicate include) {
    Map<Integer, float[]> fused = new HashMap<>(); // doc: score, coverage
    int rank = 0;
    for (Bm25Index.Hit h : lexical) {
      if (include.test(h.doc())) {
        rank++;
        fused.put(h.doc(), new float[] {1f / (K + rank), h.coverage()});
      }
    }
    List<Integer> bySimilarity = new ArrayList<>();
    for (int d = 0; d < cosines.length; d++) {
      if (include.test(d)) {
        bySimilarity.add(d);
      }
    }
    bySimilarity.sort((a, b) -> a.equals(b) ? 0 : cosines[b] != cosines[a]
        ? Float.compare(cosines[b], cosines[a]) : Integer.compare(a, b));
    for (int r = 0; r < Math.min(SEMANTIC_DEPTH, bySimilarity.size()); r++) {
      int d = bySimilarity.get(r);
      float[] f = fused.computeIfAbsent(d, k -> new float[2]);
      f[0] += 1f / (K + r + 1);
      f[1] = Math.max(f[1], Math.max(0f, Math.min(1f, cosines[d])));
    }
    List<Bm25Index.Hit> out = new ArrayList<>();
    fused.forEach((d, f) -> out.add(new Bm25Index.Hit(d, f[0], f[1])));
    out.sort((a, b) -> a.score() != b.score() ? Float.compare(b.score(), a.score())
        : Integer.compare(a.doc(), b.doc()));
    return out;
  }
}
