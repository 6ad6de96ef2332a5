package dev.gadget.mcp.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The last lines a server wrote to its standard error, bounded, for messages; each is logged. */
final class StderrTail {
  private static final Logger log = LoggerFactory.getLogger(StderrTail.class);
  private static final int LINES = 5;
  private static final int LINE_CHARS = 300;

  private final String server;
  private final Deque<String> lines = new ArrayDeque<>();

  StderrTail(String server) {
    this.server = server;
  }

  synchronized void accept(String line) {
    log.debug("MCP server {}: {}", server, line);
    if (line.isBlank()) {
      return;
    }
    lines.addLast(line.length() > LINE_CHARS ? line.substring(0, LINE_CHARS) + "…" : line);
    while (lines.size() > LINES) {
      lines.removeFirst();
    }
  }

  /** {@code "; it said: …"} with the last line, or {@code ""} when it said nothing. */
  synchronized String lastWords() {
    return lines.isEmpty() ? "" : "; it said: " + lines.peekLast();
  }
}
