package dev.gadget.core.agent.catalog;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The words people use for what tools call otherwise ("open a ticket" for {@code create_issue}):
 * groups of words that a query's word also searches for, at a lower weight. General words of
 * software tools only, none for a particular server. Pure and thread-safe.
 */
final class Synonyms {
  /** Each group: words that stand for one another in a request for a tool. */
  private static final String[] GROUPS = {
    "create new add make open start generate insert",
    "get show fetch retrieve read view display see describe",
    "list enumerate all browse",
    "delete remove drop erase destroy clear forget purge",
    "update edit change modify patch set rename alter",
    "search find look query lookup locate discover",
    "send post message notify tell",
    "run execute exec launch invoke evaluate",
    "navigate go visit browse load url",
    "close stop end quit terminate kill",
    "issue ticket bug problem",
    "pull pr",
    "merge mr",
    "repository repo project",
    "directory folder dir",
    "document record row entry item",
    "image picture photo png",
    "screenshot capture snapshot",
    "javascript js script",
    "database db",
    "kubernetes k8s kubectl cluster",
    "environment env variable",
    "organization org company",
    "comment reply note",
    "documentation docs doc manual",
    "chart plot graph diagram visualize draw",
  };
  private static final Map<String, List<String>> BY_STEM = new HashMap<>();

  static {
    for (String group : GROUPS) {
      Set<String> stems = new LinkedHashSet<>();
      for (String w : group.split(" ")) {
        stems.add(Tokenizer.stem(w));
      }
      for (String s : stems) {
        List<String> others = BY_STEM.computeIfAbsent(s, k -> new ArrayList<>());
        for (String o : stems) {
          if (!o.equals(s) && !others.contains(o)) {
            others.add(o);
          }
        }
      }
    }
  }

  private Synonyms() {}

  /** The other stems {@code stem} also stands for (empty when none). */
  static List<String> of(String stem) {
    return BY_STEM.getOrDefault(stem, List.of());
  }
}
