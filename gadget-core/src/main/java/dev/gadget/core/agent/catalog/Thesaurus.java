package dev.gadget.core.agent.catalog;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What users say for what tool definitions say ({@code nuke => delete drop remove},
 * {@code tear down => delete cleanup}): a table of general software vocabulary, one way only,
 * read from {@code thesaurus-actions.txt}, {@code thesaurus-things.txt} and
 * {@code thesaurus-everyday.txt} beside this class. A query's word or phrase on the left also
 * searches for the words on the right, below the weight of the query's own words. Unlike
 * {@link Synonyms} (groups of equals), the right side is never searched for the left. Immutable
 * and thread-safe.
 */
final class Thesaurus {
  /** The table shipped with Gadget. */
  static final Thesaurus DEFAULT = load("thesaurus-actions.txt", "thesaurus-things.txt",
      "thesaurus-everyday.txt");

  /** A phrase of the table: its words (stemmed) and the stems it stands for. */
  private record Phrase(String[] words, List<String> targets) {}

  private final Map<String, List<String>> byWord = new HashMap<>();
  private final Map<String, List<Phrase>> byFirstWord = new HashMap<>();

  private Thesaurus() {}

  /** Reads a table: {@code left, left => right right} lines, {@code #} comments. */
  static Thesaurus parse(List<String> lines, String source) {
    Thesaurus t = new Thesaurus();
    t.read(lines, source);
    return t.frozen();
  }

  /** This table, its lists made unmodifiable: {@link #of} hands them out. */
  private Thesaurus frozen() {
    byWord.replaceAll((k, v) -> List.copyOf(v));
    byFirstWord.replaceAll((k, v) -> List.copyOf(v));
    return this;
  }

  private void read(List<String> lines, String source) {
    int n = 0;
    for (String raw : lines) {
      n++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int arrow = line.indexOf("=>");
      List<String> targets = arrow < 0 ? List.of() : Tokenizer.terms(line.substring(arrow + 2));
      if (arrow <= 0 || targets.isEmpty()) {
        throw new IllegalStateException(source + " line " + n
            + ": expected \"words, phrase => words\", got \"" + line + "\"");
      }
      for (String left : line.substring(0, arrow).split(",")) {
        List<String> words = keyWords(left);
        if (words.size() == 1) {
          add(byWord.computeIfAbsent(words.get(0), k -> new ArrayList<>()), targets,
              words.get(0));
        } else if (words.size() > 1) {
          byFirstWord.computeIfAbsent(words.get(0), k -> new ArrayList<>())
              .add(new Phrase(words.toArray(String[]::new), List.copyOf(targets)));
        }
      }
    }
  }

  private static void add(List<String> to, List<String> targets, String self) {
    for (String s : targets) {
      if (!s.equals(self) && !to.contains(s)) {
        to.add(s);
      }
    }
  }

  /** The stems a query's word (a stem) also stands for; empty when none. */
  List<String> of(String stem) {
    return byWord.getOrDefault(stem, List.of());
  }

  /**
   * For each phrase of the table in {@code query} (matched word by word on stems, stop words
   * kept: "tearing down" is "tear down"), the stems it stands for.
   */
  List<List<String>> phrases(String query) {
    List<String> words = keyWords(query);
    List<List<String>> out = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      for (Phrase p : byFirstWord.getOrDefault(words.get(i), List.of())) {
        if (startsAt(words, i, p.words()) && !out.contains(p.targets())) {
          out.add(p.targets());
        }
      }
    }
    return out;
  }

  private static boolean startsAt(List<String> words, int i, String[] phrase) {
    if (i + phrase.length > words.size()) {
      return false;
    }
    for (int j = 1; j < phrase.length; j++) {
      if (!words.get(i + j).equals(phrase[j])) {
        return false;
      }
    }
    return true;
  }

  /** Lower-cased, split at anything but letters and digits, stemmed, stop words kept. */
  static List<String> keyWords(String text) {
    List<String> out = new ArrayList<>();
    for (String w : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
      if (!w.isEmpty()) {
        out.add(Tokenizer.stem(w));
      }
    }
    return out;
  }

  private static Thesaurus load(String... resources) {
    Thesaurus t = new Thesaurus();
    for (String resource : resources) {
      try (InputStream in = Thesaurus.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(resource + " is missing beside "
              + Thesaurus.class.getName() + "; the jar is incomplete");
        }
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        t.read(r.lines().toList(), resource);
      } catch (IOException e) {
        throw new UncheckedIOException("could not read " + resource, e);
      }
    }
    return t.frozen();
  }

  @Override
  public String toString() {
    return "Thesaurus{" + byWord.size() + " words, " + byFirstWord.values().stream()
        .mapToInt(List::size).sum() + " phrases}";
  }
}
