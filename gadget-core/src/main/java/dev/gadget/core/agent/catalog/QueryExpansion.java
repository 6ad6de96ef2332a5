package dev.gadget.core.agent.catalog;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a query's word searches for: itself (weight 1), {@link Synonyms}' hand-made group at
 * {@link ToolCatalog#SYNONYM_WEIGHT}, the words {@link Lexicon} (WordNet) relates it to at their
 * lower weights, and, for a word of {@value #PREFIX_LENGTH} letters or more, up to
 * {@value #PREFIX_TERMS} longer terms of the index it begins ("mongo": mongodb, "config":
 * configur) at {@value #PREFIX_WEIGHT}; a term reached twice keeps its highest weight. Pure and
 * thread-safe.
 */
final class QueryExpansion {
  /** The shortest stem that also searches for the index's terms it begins. */
  static final int PREFIX_LENGTH = 4;
  /** The most such terms. */
  static final int PREFIX_TERMS = 5;
  /** Their weight. */
  static final float PREFIX_WEIGHT = 0.3f;

  private QueryExpansion() {}

  /** The terms {@code stem} searches for in {@code index}, itself first. */
  static List<Bm25Index.Term> group(String stem, Bm25Index index) {
    Map<String, Float> weights = new LinkedHashMap<>();
    weights.put(stem, 1f);
    for (String s : Synonyms.of(stem)) {
      weights.merge(s, ToolCatalog.SYNONYM_WEIGHT, Math::max);
    }
    for (Lexicon.Related r : Lexicon.of(stem)) {
      weights.merge(r.stem(), r.weight(), Math::max);
    }
    if (stem.length() >= PREFIX_LENGTH) {
      for (String longer : index.longer(stem, PREFIX_TERMS)) {
        weights.merge(longer, PREFIX_WEIGHT, Math::max);
      }
    }
    List<Bm25Index.Term> out = new ArrayList<>(weights.size());
    weights.forEach((s, w) -> out.add(new Bm25Index.Term(s, w)));
    return out;
  }
}
