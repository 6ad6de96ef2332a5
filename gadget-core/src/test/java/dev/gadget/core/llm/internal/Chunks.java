package dev.gadget.core.llm.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/** Ways to cut input into pieces, so tests can put read boundaries anywhere. */
final class Chunks {
  private Chunks() {}

  /**
   * The whole input; one byte at a time; every cut into two pieces; and {@code random} random
   * cuttings into pieces of 1 to 17 bytes.
   */
  static List<List<byte[]>> splittings(byte[] data, int random) {
    List<List<byte[]>> all = new ArrayList<>();
    all.add(List.of(data));
    List<byte[]> single = new ArrayList<>();
    for (byte b : data) {
      single.add(new byte[] {b});
    }
    all.add(single);
    for (int cut = 1; cut < data.length; cut++) {
      all.add(List.of(Arrays.copyOfRange(data, 0, cut), Arrays.copyOfRange(data, cut, data.length)));
    }
    Random r = new Random(7);
    for (int i = 0; i < random; i++) {
      List<byte[]> pieces = new ArrayList<>();
      int pos = 0;
      while (pos < data.length) {
        int n = Math.min(data.length - pos, 1 + r.nextInt(17));
        pieces.add(Arrays.copyOfRange(data, pos, pos + n));
        pos += n;
      }
      all.add(pieces);
    }
    return all;
  }

  /** The same for UTF-8 text. */
  static List<List<byte[]>> splittings(String text, int random) {
    return splittings(text.getBytes(StandardCharsets.UTF_8), random);
  }

  /** The whole string; one char at a time; every cut into two pieces. */
  static List<List<String>> stringSplittings(String s) {
    List<List<String>> all = new ArrayList<>();
    all.add(List.of(s));
    List<String> single = new ArrayList<>();
    for (int i = 0; i < s.length(); i++) {
      single.add(s.substring(i, i + 1));
    }
    all.add(single);
    for (int cut = 1; cut < s.length(); cut++) {
      all.add(List.of(s.substring(0, cut), s.substring(cut)));
    }
    return all;
  }
}
