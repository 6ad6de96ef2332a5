package dev.gadget.cluster.redis.internal.peer;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A link another node opened to this one, read by a thread of its own: the handshake, then
 * frames until the link closes, fails the protocol, or is silent for {@link #SILENT_MILLIS} (a
 * live link pings every second). What it reads goes to its {@link PeerHub}.
 */
final class PeerInbound implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(PeerInbound.class);
  static final int SILENT_MILLIS = 5_000;

  private final Socket socket;
  private final PeerHub hub;
  private final PeerHandshake handshake;
  private volatile String peerId = "(a node not yet known)";
  private volatile boolean opened;
  /** How many turns the other node follows through this link (the hub's bound). */
  final java.util.concurrent.atomic.AtomicInteger follows =
      new java.util.concurrent.atomic.AtomicInteger();

  PeerInbound(Socket socket, PeerHub hub, PeerHandshake handshake) {
    this.socket = socket;
    this.hub = hub;
    this.handshake = handshake;
  }

  String peerId() {
    return peerId;
  }

  @Override
  public void run() {
    String why = "closed by the other node";
    try {
      socket.setSoTimeout(SILENT_MILLIS);
      DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      peerId = handshake.accept(in,
          new DataOutputStream(new BufferedOutputStream(socket.getOutputStream())));
      opened = true;
      hub.opened(this);
      for (PeerFrames.Frame f = PeerFrames.read(in); f != null; f = PeerFrames.read(in)) {
        hub.received(this, f);
      }
    } catch (PeerException e) {
      why = e.getMessage();
      log.warn("link from {} at {} closed: {}", peerId, socket.getRemoteSocketAddress(), why);
    } catch (SocketTimeoutException e) {
      why = "nothing came for " + SILENT_MILLIS / 1000 + " s";
    } catch (IOException e) {
      why = e.getMessage();
    } finally {
      log.debug("link from {} ended: {}", peerId, why);
      close();
      hub.closed(this);
    }
  }

  /** The whole handshake has {@link #SILENT_MILLIS}, however slowly its bytes come. */
  void closeUnlessOpened() {
    if (!opened) {
      log.debug("a link from {} did not finish its handshake in time", socket
          .getRemoteSocketAddress());
      close();
    }
  }

  void close() {
    try {
      socket.close();
    } catch (IOException e) {
      log.debug("closing the link from {}: {}", peerId, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "PeerInbound[from " + peerId + "]";
  }
}
