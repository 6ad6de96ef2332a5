package dev.gadget.core.agent.catalog;

/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980),
 * as its author's reference implementation has it: {@code connections}, {@code connected},
 * {@code connecting} → {@code connect}; {@code generalization} → {@code gener}. For lower-case
 * English words; anything else comes back as it is. Pure and thread-safe.
 */
final class PorterStemmer {
  private PorterStemmer() {}

  /** The stem of {@code word}. */
  static String stem(String word) {
    if (word.length() <= 2) {
      return word;
    }
    for (int i = 0; i < word.length(); i++) {
      char c = word.charAt(i);
      if (c < 'a' || c > 'z') {
        return word;
      }
    }
    Word w = new Word(word);
    w.step1ab();
    w.step1c();
    w.step2();
    w.step3();
    w.step4();
    w.step5();
    return w.toString();
  }

  /** A word being stemmed: {@code b[0..k]}, {@code j} the end of the stem a suffix test left. */
  private static final class Word {
    private final char[] b;
    private int k;
    private int j;

    Word(String s) {
      b = s.toCharArray();
      k = b.length - 1;
    }

    @Override
    public String toString() {
      return new String(b, 0, k + 1);
    }

    /** Whether {@code b[i]} is a consonant. */
    private boolean cons(int i) {
      switch (b[i]) {
        case 'a', 'e', 'i', 'o', 'u':
          return false;
        case 'y':
          return i == 0 || !cons(i - 1);
        default:
          return true;
      }
    }

    /** The number of vowel-consonant sequences in {@code b[0..j]}. */
    private int m() {
      int n = 0;
      int i = 0;
      while (true) {
        if (i > j) {
          return n;
        }
        if (!cons(i)) {
          break;
        }
        i++;
      }
      i++;
      while (true) {
        while (true) {
          if (i > j) {
            return n;
          }
          if (cons(i)) {
            break;
          }
          i++;
        }
        i++;
        n++;
        while (true) {
          if (i > j) {
            return n;
          }
          if (!cons(i)) {
            break;
          }
          i++;
        }
        i++;
      }
    }

    /** Whether {@code b[0..j]} has a vowel. */
    private boolean vowelInStem() {
      for (int i = 0; i <= j; i++) {
        if (!cons(i)) {
          return true;
        }
      }
      return false;
    }

    /** Whether {@code b[i-1..i]} is a double consonant. */
    private boolean doublec(int i) {
      return i >= 1 && b[i] == b[i - 1] && cons(i);
    }

    /** Whether {@code b[i-2..i]} is consonant-vowel-consonant, the last not w, x or y. */
    private boolean cvc(int i) {
      if (i < 2 || !cons(i) || cons(i - 1) || !cons(i - 2)) {
        return false;
      }
      char c = b[i];
      return c != 'w' && c != 'x' && c != 'y';
    }

    /** Whether the word ends with {@code s}; sets {@code j} before it. */
    private boolean ends(String s) {
      int l = s.length();
      int o = k - l + 1;
      if (o < 0) {
        return false;
      }
      for (int i = 0; i < l; i++) {
        if (b[o + i] != s.charAt(i)) {
          return false;
        }
      }
      j = k - l;
      return true;
    }

    /** Puts {@code s} after {@code b[0..j]}. */
    private void setto(String s) {
      int l = s.length();
      for (int i = 0; i < l; i++) {
        b[j + 1 + i] = s.charAt(i);
      }
      k = j + l;
    }

    private void r(String s) {
      if (m() > 0) {
        setto(s);
      }
    }

    /** Plurals and -ed, -ing: caresses → caress, ponies → poni, meetings → meet. */
    void step1ab() {
      if (b[k] == 's') {
        if (ends("sses")) {
          k -= 2;
        } else if (ends("ies")) {
          setto("i");
        } else if (b[k - 1] != 's') {
          k--;
        }
      }
      if (ends("eed")) {
        if (m() > 0) {
          k--;
        }
      } else if ((ends("ed") || ends("ing")) && vowelInStem()) {
        k = j;
        if (ends("at")) {
          setto("ate");
        } else if (ends("bl")) {
          setto("ble");
        } else if (ends("iz")) {
          setto("ize");
        } else if (doublec(k)) {
          k--;
          char c = b[k];
          if (c == 'l' || c == 's' || c == 'z') {
            k++;
          }
        } else if (m() == 1 && cvc(k)) {
          setto("e");
        }
      }
    }

    /** A final y after a vowel in the stem becomes i. */
    void step1c() {
      if (ends("y") && vowelInStem()) {
        b[k] = 'i';
      }
    }

    /** Double suffixes to single ones: -ization → -ize, -fulness → -ful. */
    void step2() {
      if (k == 0) {
        return;
      }
      switch (b[k - 1]) {
        case 'a' -> {
          if (ends("ational")) {
            r("ate");
          } else if (ends("tional")) {
            r("tion");
          }
        }
        case 'c' -> {
          if (ends("enci")) {
            r("ence");
          } else if (ends("anci")) {
            r("ance");
          }
        }
        case 'e' -> {
          if (ends("izer")) {
            r("ize");
          }
        }
        case 'l' -> {
          if (ends("bli")) {
            r("ble");
          } else if (ends("alli")) {
            r("al");
          } else if (ends("entli")) {
            r("ent");
          } else if (ends("eli")) {
            r("e");
          } else if (ends("ousli")) {
            r("ous");
          }
        }
        case 'o' -> {
          if (ends("ization")) {
            r("ize");
          } else if (ends("ation")) {
            r("ate");
          } else if (ends("ator")) {
            r("ate");
          }
        }
        case 's' -> {
          if (ends("alism")) {
            r("al");
          } else if (ends("iveness")) {
            r("ive");
          } else if (ends("fulness")) {
            r("ful");
          } else if (ends("ousness")) {
            r("ous");
          }
        }
        case 't' -> {
          if (ends("aliti")) {
            r("al");
          } else if (ends("iviti")) {
            r("ive");
          } else if (ends("biliti")) {
            r("ble");
          }
        }
        case 'g' -> {
          if (ends("logi")) {
            r("log");
          }
        }
        default -> { }
      }
    }

    /** -ic-, -full, -ness and the like. */
    void step3() {
      switch (b[k]) {
        case 'e' -> {
          if (ends("icate")) {
            r("ic");
          } else if (ends("ative")) {
            r("");
          } else if (ends("alize")) {
            r("al");
          }
        }
        case 'i' -> {
          if (ends("iciti")) {
            r("ic");
          }
        }
        case 'l' -> {
          if (ends("ical")) {
            r("ic");
          } else if (ends("ful")) {
            r("");
          }
        }
        case 's' -> {
          if (ends("ness")) {
            r("");
          }
        }
        default -> { }
      }
    }

    /** -ant, -ence and the like, where the stem is long enough (m > 1). */
    void step4() {
      if (k == 0) {
        return;
      }
      boolean found = switch (b[k - 1]) {
        case 'a' -> ends("al");
        case 'c' -> ends("ance") || ends("ence");
        case 'e' -> ends("er");
        case 'i' -> ends("ic");
        case 'l' -> ends("able") || ends("ible");
        case 'n' -> ends("ant") || ends("ement") || ends("ment") || ends("ent");
        case 'o' -> (ends("ion") && j >= 0 && (b[j] == 's' || b[j] == 't')) || ends("ou");
        case 's' -> ends("ism");
        case 't' -> ends("ate") || ends("iti");
        case 'u' -> ends("ous");
        case 'v' -> ends("ive");
        case 'z' -> ends("ize");
        default -> false;
      };
      if (found && m() > 1) {
        k = j;
      }
    }

    /** A final -e where the stem is long enough, and -ll to -l. */
    void step5() {
      j = k;
      if (b[k] == 'e') {
        int a = m();
        if (a > 1 || (a == 1 && !cvc(k - 1))) {
          k--;
        }
      }
      if (b[k] == 'l' && doublec(k) && m() > 1) {
        k--;
      }
    }
  }
}
