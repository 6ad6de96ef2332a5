package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmException;
import java.util.function.Consumer;

/**
 * Splits newline-delimited JSON into lines. Text arrives in arbitrary pieces; a line is handed on
 * only once its {@code \n} arrived (or at {@link #finish()}, for an unterminated last line). A
 * trailing {@code \r} is dropped and blank lines are skipped. A line longer than the limit fails
 * with {@link LlmException.Kind#PROTOCOL}. Not thread-safe; one per stream.
 */
public final class NdjsonLineReader {
  private final int maxLineChars;
  private final Consumer<String> onLine;
  private final StringBuilder partial = new StringBuilder();

  /**
   * A reader.
   *
   * @param maxLineChars the longest line accepted
   * @param onLine receives each non-blank line, without its line ending
   */
  public NdjsonLineReader(int maxLineChars, Consumer<String> onLine) {
    this.maxLineChars = maxLineChars;
    this.onLine = onLine;
  }

  /** Feeds the next piece of text. */
  public void feed(String chars) {
    int start = 0;
    int n = chars.length();
    while (start < n) {
      int nl = chars.indexOf('\n', start);
      if (nl < 0) {
        partial.append(chars, start, n);
        checkLength(partial.length());
        return;
      }
      if (partial.length() == 0) {
        checkLength(nl - start);
        emit(chars.substring(start, nl));
      } else {
        partial.append(chars, start, nl);
        checkLength(partial.length());
        emit(partial.toString());
        partial.setLength(0);
      }
      start = nl + 1;
    }
  }

  /** Ends the input, handing on an unterminated last line. */
  public void finish() {
    if (partial.length() > 0) {
      String last = partial.toString();
      partial.setLength(0);
      emit(last);
    }
  }

  private void emit(String line) {
    int end = line.length();
    if (end > 0 && line.charAt(end - 1) == '\r') {
      line = line.substring(0, end - 1);
    }
    if (!line.isBlank()) {
      onLine.accept(line);
    }
  }

  private void checkLength(int len) {
    if (len > maxLineChars) {
      throw new LlmException(LlmException.Kind.PROTOCOL,
          "NDJSON line longer than " + maxLineChars + " characters");
    }
  }
}
