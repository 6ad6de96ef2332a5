package dev.gadget.core.agent.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns a tool's name, description or a query into search terms: split at anything that is not a
 * letter or a digit, at {@code snake_case} and {@code kebab-case} separators and at
 * {@code camelCase} humps ({@code HTTPServer}: {@code http}, {@code server}); lower-cased; common
 * English words dropped; each word through the Porter stemmer ({@link PorterStemmer}) so that
 * "creating issues" meets "create_issue" and "connections" {@code connect}. Pure and thread-safe.
 */
final class Tokenizer {
  /** Words that say nothing about what a tool does. */
  private static final Set<String> STOP = Set.of("a", "an", "the", "to", "of", "in", "on", "for",
      "and", "or", "is", "are", "was", "be", "been", "it", "its", "this", "that", "these", "those",
      "with", "from", "by", "as", "at", "into", "i", "me", "my", "we", "our", "you", "your",
      "please", "can", "could", "would", "should", "will", "do", "does", "did", "some", "any",
      "there", "here", "what", "which", "who", "how", "want", "need", "let", "lets", "us", "if",
      "then", "so", "just", "also", "about", "via", "e", "g", "etc", "s", "t");

  private Tokenizer() {}

  /** The terms of {@code text}, in order, repeats kept. */
  static List<String> terms(String text) {
    List<String> out = new ArrayList<>();
    if (text == null) {
      return out;
    }
    int n = text.length();
    int start = -1;
    for (int i = 0; i <= n; i++) {
      char c = i < n ? text.charAt(i) : ' ';
      boolean word = Character.isLetterOrDigit(c);
      if (word && start < 0) {
        start = i;
      } else if (word && start >= 0 && hump(text, i)) {
        add(out, text.substring(start, i));
        start = i;
      } else if (!word && start >= 0) {
        add(out, text.substring(start, i));
        start = -1;
      }
    }
    return out;
  }

  /** Whether a new word starts at {@code i} inside a run of letters and digits. */
  private static boolean hump(String s, int i) {
    char prev = s.charAt(i - 1);
    char c = s.charAt(i);
    if (Character.isLowerCase(prev) && Character.isUpperCase(c)) {
      return true; // camelCase
    }
    // HTTPServer: the S starts a word when a lower-case letter follows it
    return Character.isUpperCase(prev) && Character.isUpperCase(c) && i + 1 < s.length()
        && Character.isLowerCase(s.charAt(i + 1));
  }

  private static void add(List<String> out, String word) {
    String w = word.toLowerCase(java.util.Locale.ROOT);
    if (!STOP.contains(w)) {
      out.add(stem(w));
    }
  }

  /** The Porter stem of a lower-case word: {@code issues → issu}, {@code creating → creat}. */
  static String stem(String w) {
    return PorterStemmer.stem(w);
  }
}
