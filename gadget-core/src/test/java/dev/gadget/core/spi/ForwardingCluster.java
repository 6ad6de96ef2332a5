package dev.gadget.core.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A cluster node that hands every call to another: extend it and override what a test changes
 * (a backend made absent, renewals that stop). Published in the gadget-core test-jar.
 */
public abstract class ForwardingCluster implements Cluster {
  protected final Cluster delegate;

  protected ForwardingCluster(Cluster delegate) {
    this.delegate = delegate;
  }

  @Override
  public String nodeId() {
    return delegate.nodeId();
  }

  @Override
  public Lease acquire(String droneId, Duration ttl) {
    return delegate.acquire(droneId, ttl);
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    return delegate.renew(lease, ttl);
  }

  @Override
  public Lease refence(Lease lease, long floor, Duration ttl) {
    return delegate.refence(lease, floor, ttl);
  }

  @Override
  public void release(Lease lease) {
    delegate.release(lease);
  }

  @Override
  public Optional<Lease> locate(String droneId) {
    return delegate.locate(droneId);
  }

  @Override
  public long lastFence() {
    return delegate.lastFence();
  }

  @Override
  public boolean claimChat(String sessionId, String turnId, Duration ttl) {
    return delegate.claimChat(sessionId, turnId, ttl);
  }

  @Override
  public boolean renewChat(String sessionId, String turnId, Duration ttl) {
    return delegate.renewChat(sessionId, turnId, ttl);
  }

  @Override
  public void releaseChat(String sessionId, String turnId) {
    delegate.releaseChat(sessionId, turnId);
  }

  @Override
  public Optional<String> chatClaim(String sessionId) {
    return delegate.chatClaim(sessionId);
  }

  @Override
  public boolean append(String turnId, long seq, String event, String json) {
    return delegate.append(turnId, seq, event, json);
  }

  @Override
  public boolean[] appendAll(List<FeedAppend> appends) {
    return delegate.appendAll(appends);
  }

  @Override
  public List<FeedEvent> read(String turnId, long afterSeq, int max) {
    return delegate.read(turnId, afterSeq, max);
  }

  @Override
  public Subscription follow(String turnId, long afterSeq, FeedListener listener) {
    return delegate.follow(turnId, afterSeq, listener);
  }

  @Override
  public void endFeed(String turnId, Duration keep) {
    delegate.endFeed(turnId, keep);
  }

  @Override
  public void receiveMail(MailHandler handler) {
    delegate.receiveMail(handler);
  }

  @Override
  public CompletableFuture<String> send(String nodeId, String kind, String body,
      Duration deadline) {
    return delegate.send(nodeId, kind, body, deadline);
  }

  @Override
  public boolean reachable() {
    return delegate.reachable();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
