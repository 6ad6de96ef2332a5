package dev.gadget.core.agent.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Turns a tool's name, description or a query into search terms: split at anything that is not a
 * letter or a digit, at {@code snake_case} and {@code kebab-case} separators and at
 * {@code camelCase} humps ({@code HTTPServer}: {@code http}, {@code server}); lower-cased; common
 * English words dropped; each word through a tiny stemmer (plurals, {@code -ing}, {@code -ed}, a
 * final {@code e}) so that "creating issues" meets "create_issue". Pure and thread-safe.
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

  /** A tiny stemmer: {@code issues → issu}, {@code creating → creat}, {@code stopped → stop}. */
  static String stem(String w) {
    if (w.length() <= 3 || !Character.isLetter(w.charAt(w.length() - 1))) {
      return w;
    }
    String s = w;
    if (s.endsWith("ies") && s.length() > 4) {
      s = s.substring(0, s.length() - 3) + "y";
    } else if (s.endsWith("sses") || s.endsWith("ches") || s.endsWith("shes")
        || s.endsWith("xes") || s.endsWith("zes")) {
      s = s.substring(0, s.length() - 2);
    } else if (s.endsWith("s") && !s.endsWith("ss") && !s.endsWith("us")
        && !s.endsWith("is")) {
      s = s.substring(0, s.length() - 1);
    }
    if (s.endsWith("ing") && s.length() - 3 >= 4) {
      s = undouble(s.substring(0, s.length() - 3));
    } else if (s.endsWith("ed") && s.length() - 2 >= 3) {
      s = undouble(s.substring(0, s.length() - 2));
    }
    if ((s.endsWith("tion") || s.endsWith("sion")) && s.length() - 3 >= 4) {
      s = s.substring(0, s.length() - 3); // compression: compress, connection: connect
    } else if (s.endsWith("ment") && s.length() - 4 >= 4) {
      s = s.substring(0, s.length() - 4); // deployment: deploy, management: manag
    }
    if (s.endsWith("e") && s.length() > 3) {
      s = s.substring(0, s.length() - 1);
    }
    return s;
  }

  /** {@code runn → run}, {@code stopp → stop}; not {@code ll}, {@code ss}, {@code zz}. */
  private static String undouble(String s) {
    int n = s.length();
    if (n >= 3 && s.charAt(n - 1) == s.charAt(n - 2) && "bdgmnprt".indexOf(s.charAt(n - 1)) >= 0) {
      return s.substring(0, n - 1);
    }
    return s;
  }
}
