package dev.gadget.transport.ws;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The log as written: slf4j-simple (the tests' binding, src/test/resources/simplelogger.properties)
 * writes to whatever {@code System.err} is at each line, so while a capture is open every log
 * line (and any stack trace) is kept here as well as passed on. Keeps at most
 * {@value #MAX_KEPT} lines (those a filter accepts) but counts all of them. Close it to stop.
 */
final class LogCapture implements AutoCloseable {
  static final int MAX_KEPT = 50_000;
  /** A line of a stack trace as Throwable.printStackTrace writes it. */
  static final Pattern STACK_LINE =
      Pattern.compile("^(\\s+at |\\s*Caused by: |\\s+\\.\\.\\. \\d+ more|\\s*Suppressed: ).*");

  private final PrintStream original = System.err;
  private final Predicate<String> keep;
  private final List<String> lines = new ArrayList<>();
  private long total;

  private LogCapture(Predicate<String> keep) {
    this.keep = keep;
  }

  /** Captures every line. */
  static LogCapture start() {
    return start(line -> true);
  }

  /** Captures the lines that {@code keep} accepts, and counts all. */
  static LogCapture start(Predicate<String> keep) {
    LogCapture c = new LogCapture(keep);
    System.setErr(new PrintStream(c.new Tee(), true, StandardCharsets.UTF_8));
    return c;
  }

  /** Every line kept so far. */
  synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  /** How many lines were written, kept or not. */
  synchronized long total() {
    return total;
  }

  /** The lines at {@code level} (WARN, ERROR, ...) from a logger whose name starts with {@code prefix}. */
  List<String> at(String level, String prefix) {
    return lines().stream().filter(l -> l.contains(" " + level + " " + prefix)).toList();
  }

  /** The stack trace lines. */
  List<String> stackTraceLines() {
    return lines().stream().filter(l -> STACK_LINE.matcher(l).matches()).toList();
  }

  private synchronized void line(String line) {
    total++;
    if (lines.size() < MAX_KEPT && keep.test(line)) {
      lines.add(line);
    }
  }

  @Override
  public void close() {
    System.err.flush();
    System.setErr(original);
  }

  /** Splits into lines and passes everything on. */
  private final class Tee extends OutputStream {
    private final ByteArrayOutputStream current = new ByteArrayOutputStream();

    @Override
    public synchronized void write(int b) {
      original.write(b);
      take(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      original.write(b, off, len);
      for (int i = off; i < off + len; i++) {
        take(b[i]);
      }
    }

    private void take(int b) {
      if (b == '\n') {
        line(current.toString(StandardCharsets.UTF_8));
        current.reset();
      } else if (b != '\r') {
        current.write(b);
      }
    }

    @Override
    public void flush() {
      original.flush();
    }
  }
}
