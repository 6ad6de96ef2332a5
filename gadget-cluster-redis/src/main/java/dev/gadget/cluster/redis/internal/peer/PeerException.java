package dev.gadget.cluster.redis.internal.peer;

/** A peer broke the protocol or failed the handshake: its link is closed, in these words. */
final class PeerException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  PeerException(String message) {
    super(message);
  }
}
