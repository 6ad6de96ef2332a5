package dev.gadget.core;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for tests that hand a port to another process (a server, Redis) to listen on. A port the
 * system chose for a socket opened and closed here lies in its ephemeral range, where any socket
 * opened meanwhile (another process's listener on port 0, an outgoing connection) may take it
 * before that process binds it. These come from below the ephemeral range (Linux's starts at
 * 32768), one after another from a random start, each checked free on 127.0.0.1.
 */
public final class TestPorts {
  private static final int FIRST = 20_000;
  private static final int LAST = 32_000;
  private static final AtomicInteger NEXT =
      new AtomicInteger(FIRST + ThreadLocalRandom.current().nextInt(LAST - FIRST));

  private TestPorts() {}

  /** A port free on 127.0.0.1 now, outside the ephemeral range, not handed out before here. */
  public static int free() throws IOException {
    for (int i = 0; i < LAST - FIRST; i++) {
      int port = FIRST + Math.floorMod(NEXT.getAndIncrement() - FIRST, LAST - FIRST);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      } catch (IOException busy) {
        // taken: the next one
      }
    }
    throw new IOException("no free port between " + FIRST + " and " + LAST);
  }
}
