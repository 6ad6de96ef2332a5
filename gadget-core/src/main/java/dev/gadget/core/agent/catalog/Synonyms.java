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
    // what a tool does
    "create new add make open start generate insert",
    "get show fetch retrieve read view display see describe inspect print",
    "list enumerate all browse",
    "delete remove drop erase destroy clear forget purge discard uninstall",
    "update edit change modify patch set rename alter replace",
    "search find look query lookup locate discover grep",
    "send post message notify tell",
    "run execute exec launch invoke evaluate trigger call",
    "navigate go visit browse load url",
    "close stop end quit terminate kill cancel abort",
    "move rename relocate",
    "copy duplicate clone fork",
    "save store write persist remember",
    "download export save",
    "upload attach",
    "compress zip gzip archive",
    "count number total many",
    "monitor watch track observe",
    "reply respond answer",
    "approve accept confirm",
    "connect connection login attach",
    // HTTP's verbs, as tools generated from an API's description are named
    "create post",
    "update put patch",
    // what it works on
    "issue ticket bug problem",
    "pull pr",
    "merge mr",
    "repository repo project",
    "directory folder dir",
    "file document",
    "document record row entry item",
    "schema field column property attribute structure",
    "size big large bytes space",
    "image picture photo png jpg screenshot",
    "screenshot capture snapshot",
    "screencast video recording record",
    "javascript js script code",
    "database db",
    "kubernetes k8s kubectl cluster",
    "pod container",
    "environment env variable",
    "configuration config setting settings preference option",
    "process program job task",
    "terminal shell console command cli",
    "log logs output stdout printed",
    "organization org company",
    "user member people person account",
    "comment reply note",
    "documentation docs doc manual reference",
    "library package dependency module framework",
    "chart plot graph diagram visualize draw",
    "dialog alert popup modal prompt confirm",
    "input field box textbox form",
    "type enter fill input",
    "click tap press",
    "hover mouse pointer",
    "page tab window",
    "network http request traffic",
    "website site web internet online",
    "link url href",
    "elevation altitude height",
    "coordinate latitude longitude location position",
    "place business shop restaurant venue nearby",
    "distance far",
    "performance speed slow profile trace",
    "statistic stats metric usage",
    "relation relationship link",
    "observation fact",
    "entity node",
    "paper article publication research",
    "memory remember recall knowledge know",
    "history earlier recent past previous said",
    "sum plus together addition",
    "content text body",
    "detail details info information",
    "self me myself",
  };
  /** Phrases that stand for one word: {@code "how many"} asks for a count. */
  private static final String[][] PHRASES = {
    {"how many", "count"},
    {"how much", "count"},
    {"how big", "size"},
    {"how large", "size"},
    {"how far", "distance"},
    {"how high", "elevation"},
    {"who am i", "self"},
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

  /**
   * The words a query's phrases stand for ({@code "how many orders"}: {@code count}), to search
   * for besides its own words.
   */
  static List<String> phrases(String query) {
    String q = " " + query.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", " ") + " ";
    List<String> out = new ArrayList<>();
    for (String[] p : PHRASES) {
      if (q.contains(" " + p[0] + " ")) {
        out.add(p[1]);
      }
    }
    return out;
  }

  /** The other stems {@code stem} also stands for (empty when none). */
  static List<String> of(String stem) {
    return BY_STEM.getOrDefault(stem, List.of());
  }
}
