package dev.gadget.core.agent.catalog;

import java.util.Objects;

/**
 * A tool a {@link ToolCatalog#search search} found.
 *
 * @param name the tool's name, as the model calls it
 * @param summary the first sentence of its description, on one line (at most 160 characters)
 * @param score its score for the query: BM25, or with embeddings the fused reciprocal ranks
 *     (larger is better; only comparable within a query)
 * @param similarity how much of the query the tool covers, from 0 to 1: the share of the
 *     query's words (each weighted by how rare it is among the tools) that the tool's name,
 *     description or parameters contain; 1 when the query names the tool; with embeddings, the
 *     larger of that and the cosine of the tool's embedding with the query's
 */
public record ToolMatch(String name, String summary, double score, double similarity) {
  public ToolMatch {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(summary, "summary");
  }
}
