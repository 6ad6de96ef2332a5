package dev.gadget.core.agent.catalog;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.GZIPInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an English word is related to, from Princeton WordNet 3.0 reduced by
 * {@code scripts/wordnet-lexicon/build.py} to the words of tool catalogs and common words
 * ({@code lexicon.txt.gz} beside this class, its licence in {@code lexicon-LICENSE.txt}): a word's
 * synonyms in its most frequent senses, the hypernyms of those senses ("cafe": restaurant), its
 * derived forms ("reaction": react, "creation": create) and the base forms of an irregular
 * inflection ("wrote": write). A query's word also searches for these, each kind at its weight,
 * all below the word itself; WordNet's synonyms and hypernyms also below {@link Synonyms}'
 * hand-made groups, for they hold every sense of a word, not only the software one.
 *
 * <p>Read once a JVM (15,400 words, 222 KB gzipped: tens of milliseconds warm, a few hundred
 * cold) on a daemon thread the first catalog starts ({@link #warmUp}), so that the first search
 * does not wait for it unless it comes first; immutable after, thread-safe. When the resource
 * cannot be read, search goes on without it (logged at WARN once).
 */
final class Lexicon {
  /** What a synonym from WordNet weighs against the word itself. */
  static final float SYNONYM = 0.3f;
  /** What a hypernym (a more general word) weighs. */
  static final float HYPERNYM = 0.1f;
  /** What a derived form weighs. */
  static final float DERIVED = 0.5f;
  /** What the base form of an irregular inflection weighs ("wrote": write). */
  static final float INFLECTED = 0.9f;
  /** The most a line of the resource may hold, and the most lines it may have. */
  private static final int MAX_LINE = 4_096;
  private static final int MAX_LINES = 100_000;
  private static final float[] WEIGHTS = {SYNONYM, HYPERNYM, DERIVED, INFLECTED};
  private static final Logger log = LoggerFactory.getLogger(Lexicon.class);

  /** A related stem and its weight. */
  record Related(String stem, float weight) {}

  private static final class Holder {
    static final Map<String, List<Related>> BY_STEM = load("lexicon.txt.gz");
  }

  private static final AtomicBoolean WARMING = new AtomicBoolean();

  private Lexicon() {}

  /** Starts reading the resource on a daemon thread, once a JVM; returns at once. */
  static void warmUp() {
    if (WARMING.compareAndSet(false, true)) {
      Thread t = new Thread(Lexicon::size, "gadget-lexicon-warm-up");
      t.setDaemon(true);
      t.setPriority(Thread.MIN_PRIORITY);
      t.start();
    }
  }

  /** The stems {@code stem} is related to, with their weights (empty when none). */
  static List<Related> of(String stem) {
    return Holder.BY_STEM.getOrDefault(stem, List.of());
  }

  /** How many stems have related stems (0 when the resource could not be read). */
  static int size() {
    return Holder.BY_STEM.size();
  }

  /** Reads a resource beside this class; empty, and logged, when it cannot be read. */
  static Map<String, List<Related>> load(String resource) {
    try (InputStream raw = Lexicon.class.getResourceAsStream(resource)) {
      if (raw == null) {
        log.warn("the word lexicon {} is not on the class path: tool search goes on without it",
            resource);
        return Map.of();
      }
      return parse(new BufferedReader(new InputStreamReader(new GZIPInputStream(raw),
          StandardCharsets.UTF_8)));
    } catch (IOException | RuntimeException e) {
      log.warn("the word lexicon {} could not be read ({}): tool search goes on without it",
          resource, e.toString());
      return Map.of();
    }
  }

  /**
   * Parses lines {@code word<TAB>synonyms<TAB>hypernyms<TAB>derived<TAB>inflected-from}, each
   * field comma-separated words, into stems: a stem keeps the highest weight it is reached by.
   */
  static Map<String, List<Related>> parse(BufferedReader in) throws IOException {
    Map<String, Map<String, Float>> out = new HashMap<>();
    Map<String, String> stems = new HashMap<>(); // the related words repeat: stem each once
    int lines = 0;
    for (String line; (line = in.readLine()) != null; ) {
      if (++lines > MAX_LINES || line.length() > MAX_LINE) {
        throw new IOException("line " + lines + " is past the lexicon's bounds ("
            + MAX_LINES + " lines of " + MAX_LINE + " characters)");
      }
      String[] fields = line.split("\t", -1);
      String key = Tokenizer.stem(fields[0]);
      Map<String, Float> related = out.computeIfAbsent(key, k -> new LinkedHashMap<>());
      for (int f = 1; f < fields.length && f <= WEIGHTS.length; f++) {
        if (fields[f].isEmpty()) {
          continue;
        }
        for (String word : fields[f].split(",")) {
          String s = stems.computeIfAbsent(word, Tokenizer::stem);
          if (!s.equals(key)) {
            related.merge(s, WEIGHTS[f - 1], Math::max);
          }
        }
      }
    }
    Map<String, List<Related>> byStem = new HashMap<>();
    out.forEach((stem, related) -> {
      if (!related.isEmpty()) {
        List<Related> list = new ArrayList<>(related.size());
        related.forEach((s, w) -> list.add(new Related(s, w)));
        byStem.put(stem, Collections.unmodifiableList(list));
      }
    });
    return Collections.unmodifiableMap(byStem);
  }
}
