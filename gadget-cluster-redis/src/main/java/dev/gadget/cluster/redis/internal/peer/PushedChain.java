package dev.gadget.cluster.redis.internal.peer;

import dev.gadget.core.spi.Cluster;

/**
 * One subscription's events from two sources, each once and in order: the feed (Redis), which
 * has them all, and the node that publishes them, which pushes them sooner. The feed's are
 * taken when numbered after the last one given; a pushed one only when it is the very next: its
 * publisher's previous number is the last one given. A push lost, late or from a node that took
 * the turn over (previous unknown) is therefore never given ahead of one before it: the feed
 * brings those, and the pushes take over again from there.
 */
final class PushedChain {
  private final Cluster.FeedListener listener;
  private long last;
  private long pushed;
  private boolean closed;

  PushedChain(Cluster.FeedListener listener, long afterSeq) {
    this.listener = listener;
    this.last = afterSeq;
  }

  synchronized void fromFeed(Cluster.FeedEvent e) {
    if (!closed && e.seq() > last) {
      last = e.seq();
      listener.onEvent(e);
    }
  }

  /** Whether it was given (the very next one). */
  synchronized boolean fromPeer(long previousSeq, Cluster.FeedEvent e) {
    if (closed || previousSeq != last || e.seq() <= last) {
      return false;
    }
    last = e.seq();
    pushed++;
    listener.onEvent(e);
    return true;
  }

  /** Nothing more is given once this returns (one being given finishes first). */
  synchronized void close() {
    closed = true;
  }

  /** How many events were given from pushes (tests, benchmarks). */
  synchronized long pushed() {
    return pushed;
  }
}
