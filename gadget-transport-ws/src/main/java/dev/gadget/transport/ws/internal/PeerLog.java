package dev.gadget.transport.ws.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs what peers do wrong (invalid frames, invalid packets, slow reading, no handshake): at
 * WARN the first time a peer address does one kind of thing, at DEBUG after that, so that no
 * peer can flood the log. Never quotes what the peer sent (a CONNECT may carry a token), never
 * logs a stack trace. Remembers the last {@value #REMEMBERED} (address, kind) pairs. Thread-safe.
 */
final class PeerLog {
  private static final Logger log = LoggerFactory.getLogger(PeerLog.class);
  static final int REMEMBERED = 1000;

  /** What a peer did wrong; the text opens the log line. */
  enum Kind {
    INVALID_FRAME("Invalid WebSocket frame"),
    INVALID_UTF8("Invalid UTF-8"),
    TOO_LARGE("Message over the size limit"),
    INVALID_PACKET("Invalid Engine.IO or Socket.IO packet"),
    SLOW_READER("Too much unread data"),
    FLOOD("Too many requests waiting"),
    HANDSHAKE_TIMEOUT("No WebSocket handshake in time");

    final String text;

    Kind(String text) {
      this.text = text;
    }
  }

  private final Map<String, Boolean> warned = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > REMEMBERED;
    }
  };

  /** Logs {@code detail} about {@code peer} (an address, no port): WARN once per kind, then DEBUG. */
  void problem(String peer, Kind kind, String detail) {
    boolean first;
    synchronized (warned) {
      first = warned.put(peer + " " + kind, Boolean.TRUE) == null;
    }
    if (first) {
      log.warn("{} from {}: {} (more of this kind from {} are logged at DEBUG)",
          kind.text, peer, detail, peer);
    } else {
      log.debug("{} from {}: {}", kind.text, peer, detail);
    }
  }
}
