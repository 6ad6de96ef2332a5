package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmException;

/**
 * Reads a {@code text/event-stream} as the WHATWG HTML standard defines it: lines end in CRLF, LF
 * or a bare CR (a CRLF split across two pieces counts once); {@code :} lines are comments;
 * {@code data}, {@code event}, {@code id} and {@code retry} fields (other fields go to
 * {@link Handler#onOtherField}); several {@code data} lines join with {@code \n}; a blank line
 * dispatches the event. Unlike a browser, {@link #finish()} also dispatches an unterminated last
 * event, since servers often end a stream without the final blank line
 * ({@link #finishDroppingUnterminated()} does not, for servers that never do). A leading
 * byte-order mark is skipped. An event larger than the limit fails
 * with {@link LlmException.Kind#PROTOCOL}. Not thread-safe; one per stream.
 */
public final class SseEventReader {
  /** Receives events. */
  public interface Handler {
    /**
     * One event.
     *
     * @param id the last event id seen, or {@code null}
     * @param type the {@code event} field, or {@code null} when absent (a browser's "message")
     * @param data the data lines joined with {@code \n}
     */
    void onEvent(String id, String type, String data);

    /** A {@code retry} field: the reconnection time the server asks for, in milliseconds. */
    default void onRetry(long millis) {}

    /** A comment line (such as a keep-alive), without its leading colon. */
    default void onComment(String comment) {}

    /**
     * A field the standard does not define (a browser ignores it), such as the
     * {@code error: {...}} lines older llama.cpp servers sent instead of {@code data:}.
     *
     * @param name the field's name
     * @param value its value
     */
    default void onOtherField(String name, String value) {}
  }

  private final int maxEventChars;
  private final Handler handler;
  private final StringBuilder line = new StringBuilder();
  private boolean skipLf;
  private boolean started;
  private String firstData;
  private StringBuilder moreData;
  private int eventChars;
  private String type;
  private String lastId;

  /**
   * A reader.
   *
   * @param maxEventChars the largest event accepted (data plus field lines)
   * @param handler receives the events
   */
  public SseEventReader(int maxEventChars, Handler handler) {
    this.maxEventChars = maxEventChars;
    this.handler = handler;
  }

  /** Feeds the next piece of text. */
  public void feed(String chars) {
    int i = 0;
    int n = chars.length();
    if (!started && n > 0) {
      started = true;
      if (chars.charAt(0) == '\uFEFF') {
        i = 1;
      }
    }
    if (skipLf && i < n) {
      skipLf = false;
      if (chars.charAt(i) == '\n') {
        i++;
      }
    }
    while (i < n) {
      int eol = i;
      while (eol < n) {
        char c = chars.charAt(eol);
        if (c == '\n' || c == '\r') {
          break;
        }
        eol++;
      }
      if (eol == n) {
        line.append(chars, i, n);
        checkLength(eventChars + line.length());
        return;
      }
      if (line.length() == 0) {
        processLine(chars.substring(i, eol));
      } else {
        line.append(chars, i, eol);
        String l = line.toString();
        line.setLength(0);
        processLine(l);
      }
      i = eol + 1;
      if (chars.charAt(eol) == '\r') {
        if (i < n) {
          if (chars.charAt(i) == '\n') {
            i++;
          }
        } else {
          skipLf = true;
        }
      }
    }
  }

  /**
   * Ends the input for a server that always ends its events (Anthropic's): an unterminated last
   * event is what a dropped connection cut short, so it is dropped, never dispatched.
   */
  public void finishDroppingUnterminated() {
    line.setLength(0);
    type = null;
    eventChars = 0;
    firstData = null;
    moreData = null;
  }

  /** Ends the input: processes an unterminated last line and dispatches a pending event. */
  public void finish() {
    if (line.length() > 0) {
      String l = line.toString();
      line.setLength(0);
      processLine(l);
    }
    dispatch();
  }

  private void processLine(String l) {
    if (l.isEmpty()) {
      dispatch();
      return;
    }
    if (l.charAt(0) == ':') {
      handler.onComment(l.substring(1));
      return;
    }
    int colon = l.indexOf(':');
    String field;
    String value;
    if (colon < 0) {
      field = l;
      value = "";
    } else {
      field = l.substring(0, colon);
      int v = colon + 1;
      if (v < l.length() && l.charAt(v) == ' ') {
        v++;
      }
      value = l.substring(v);
    }
    switch (field) {
      case "data":
        eventChars += value.length() + 1;
        checkLength(eventChars);
        if (firstData == null) {
          firstData = value;
        } else {
          if (moreData == null) {
            moreData = new StringBuilder(firstData);
          }
          moreData.append('\n').append(value);
        }
        break;
      case "event":
        type = value;
        break;
      case "id":
        if (value.indexOf('\0') < 0) {
          lastId = value;
        }
        break;
      case "retry":
        if (!value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
          try {
            handler.onRetry(Long.parseLong(value));
          } catch (NumberFormatException tooLarge) {
            // ignored, as a browser would
          }
        }
        break;
      default:
        handler.onOtherField(field, value); // not part of any event
    }
  }

  private void dispatch() {
    String t = type;
    type = null;
    eventChars = 0;
    if (firstData == null) {
      return;
    }
    String data = moreData != null ? moreData.toString() : firstData;
    firstData = null;
    moreData = null;
    handler.onEvent(lastId, t, data);
  }

  private void checkLength(int len) {
    if (len > maxEventChars) {
      throw new LlmException(LlmException.Kind.PROTOCOL,
          "server-sent event larger than " + maxEventChars + " characters");
    }
  }
}
