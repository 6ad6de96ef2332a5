package dev.gadget.core.server;

import dev.gadget.core.spi.Cluster;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One node's real cluster node (a {@code RedisCluster}) whose lease renewals can be stopped:
 * once {@link #freeze}d, {@link #renew} answers "still held" without asking Redis, as a node
 * does between two renewals, or one paused (a long GC pause) that has not renewed since it woke.
 * So a test can make the window in which another node has taken a drone and this one does not
 * know it yet last as long as it needs. Everything else goes to Redis as it is.
 */
final class UnrenewedLeases implements Cluster {
  private final Cluster real;
  private volatile boolean frozen;

  UnrenewedLeases(Cluster real) {
    this.real = real;
  }

  /** From now on this node's renewals do not reach Redis: it believes it holds its drones. */
  void freeze() {
    frozen = true;
  }

  /** Its renewals reach Redis again: the next one is refused, another node holding the drone. */
  void thaw() {
    frozen = false;
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    return frozen || real.renew(lease, ttl);
  }

  @Override
  public String nodeId() {
    return real.nodeId();
  }

  @Override
  public Lease acquire(String droneId, Duration ttl) {
    return real.acquire(droneId, ttl);
  }

  @Override
  public void release(Lease lease) {
    real.release(lease);
  }

  @Override
  public Optional<Lease> locate(String droneId) {
    return real.locate(droneId);
  }

  @Override
  public boolean claimChat(String sessionId, String turnId, Duration ttl) {
    return real.claimChat(sessionId, turnId, ttl);
  }

  @Override
  public boolean renewChat(String sessionId, String turnId, Duration ttl) {
    return real.renewChat(sessionId, turnId, ttl);
  }

  @Override
  public void releaseChat(String sessionId, String turnId) {
    real.releaseChat(sessionId, turnId);
  }

  @Override
  public Optional<String> chatClaim(String sessionId) {
    return real.chatClaim(sessionId);
  }

  @Override
  public boolean append(String turnId, long seq, String event, String json) {
    return real.append(turnId, seq, event, json);
  }

  @Override
  public boolean[] appendAll(List<FeedAppend> appends) {
    return real.appendAll(appends);
  }

  @Override
  public List<FeedEvent> read(String turnId, long afterSeq, int max) {
    return real.read(turnId, afterSeq, max);
  }

  @Override
  public Subscription follow(String turnId, long afterSeq, FeedListener listener) {
    return real.follow(turnId, afterSeq, listener);
  }

  @Override
  public void endFeed(String turnId, Duration keep) {
    real.endFeed(turnId, keep);
  }

  @Override
  public void receiveMail(MailHandler handler) {
    real.receiveMail(handler);
  }

  @Override
  public CompletableFuture<String> send(String nodeId, String kind, String body,
      Duration deadline) {
    return real.send(nodeId, kind, body, deadline);
  }

  @Override
  public boolean reachable() {
    return real.reachable();
  }

  @Override
  public void close() {
    real.close();
  }
}
