package dev.gadget.core.cluster;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The nodes of one process sharing one cluster, with no backend: presence in a map, each turn's
 * feed in a bounded list, mail as a call on a thread of this hub. A single server runs alone on
 * it; tests run several servers of one JVM on one hub. {@link #join} gives each node its view.
 *
 * <p>Thread-safe. {@link #close()} stops the hub's threads; the views stop working with it.
 */
public final class InProcessCluster implements AutoCloseable {
  /** The most events one turn's feed keeps; older ones are dropped first. */
  public static final int MAX_FEED_EVENTS = 100_000;

  private final Map<String, Node> nodes = new ConcurrentHashMap<>();
  private final Map<String, HeldLease> leases = new ConcurrentHashMap<>();
  private final Map<String, TurnFeed> feeds = new ConcurrentHashMap<>();
  /** Each claimed chat, as a lease: its drone id is the session's, its node id the turn's. */
  private final Map<String, HeldLease> chats = new ConcurrentHashMap<>();
  private final AtomicLong fences = new AtomicLong();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "gadget-cluster-timer");
    t.setDaemon(true);
    return t;
  });
  /** Answers mail: at most 16 at once and 1,000 waiting, as a Redis node's mailbox bounds it. */
  private final ThreadPoolExecutor mail = new ThreadPoolExecutor(16, 16, 30, TimeUnit.SECONDS,
      new ArrayBlockingQueue<>(1_000), r -> {
        Thread t = new Thread(r, "gadget-cluster-mail");
        t.setDaemon(true);
        return t;
      });

  {
    mail.allowCoreThreadTimeOut(true);
  }

  /** A new node of this hub, with {@code nodeId}; a node of that id must not be running. */
  public Cluster join(String nodeId) {
    Objects.requireNonNull(nodeId, "nodeId");
    Node n = new Node(nodeId);
    if (nodes.putIfAbsent(nodeId, n) != null) {
      throw new IllegalStateException("node " + nodeId + " is already in the cluster");
    }
    return n;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    mail.shutdownNow();
  }

  private record HeldLease(Cluster.Lease lease, long expiresAtNanos) {
    boolean live() {
      return System.nanoTime() - expiresAtNanos < 0;
    }
  }

  private final class Node implements Cluster {
    private final String id;
    private volatile MailHandler handler;
    private volatile boolean closed;

    Node(String id) {
      this.id = id;
    }

    @Override
    public String nodeId() {
      return id;
    }

    @Override
    public Lease acquire(String droneId, Duration ttl) {
      Objects.requireNonNull(droneId, "droneId");
      Lease lease = new Lease(droneId, id, fences.incrementAndGet());
      leases.put(droneId, new HeldLease(lease, deadline(ttl)));
      return lease;
    }

    @Override
    public boolean renew(Lease lease, Duration ttl) {
      return renewIn(leases, lease, ttl);
    }

    @Override
    public Lease refence(Lease lease, long floor, Duration ttl) {
      Lease[] again = new Lease[1];
      leases.computeIfPresent(lease.droneId(), (k, held) -> {
        if (!held.lease().equals(lease) || !held.live()) {
          return held;
        }
        fences.accumulateAndGet(floor, Math::max);
        again[0] = new Lease(lease.droneId(), id, fences.incrementAndGet());
        return new HeldLease(again[0], deadline(ttl));
      });
      return again[0];
    }

    @Override
    public void release(Lease lease) {
      leases.computeIfPresent(lease.droneId(),
          (k, held) -> held.lease().equals(lease) ? null : held);
    }

    @Override
    public Optional<Lease> locate(String droneId) {
      HeldLease held = leases.get(droneId);
      return held != null && held.live() ? Optional.of(held.lease()) : Optional.empty();
    }

    @Override
    public long lastFence() {
      return fences.get();
    }

    @Override
    public boolean claimChat(String sessionId, String turnId, Duration ttl) {
      Lease claim = new Lease(sessionId, turnId, 0);
      HeldLease held = chats.compute(sessionId, (k, h) ->
          h == null || !h.live() || h.lease().equals(claim)
              ? new HeldLease(claim, deadline(ttl)) : h);
      return held.lease().equals(claim);
    }

    @Override
    public boolean renewChat(String sessionId, String turnId, Duration ttl) {
      return renewIn(chats, new Lease(sessionId, turnId, 0), ttl);
    }

    @Override
    public void releaseChat(String sessionId, String turnId) {
      Lease claim = new Lease(sessionId, turnId, 0);
      chats.computeIfPresent(sessionId, (k, held) -> held.lease().equals(claim) ? null : held);
    }

    @Override
    public Optional<String> chatClaim(String sessionId) {
      HeldLease held = chats.get(sessionId);
      return held != null && held.live() ? Optional.of(held.lease().nodeId()) : Optional.empty();
    }

    @Override
    public boolean append(String turnId, long seq, String event, String json) {
      checkSize(json);
      return feeds.computeIfAbsent(turnId, k -> new TurnFeed())
          .append(new FeedEvent(seq, event, json));
    }

    @Override
    public List<FeedEvent> read(String turnId, long afterSeq, int max) {
      TurnFeed feed = feeds.get(turnId);
      return feed == null ? List.of() : feed.after(afterSeq, max);
    }

    @Override
    public Subscription follow(String turnId, long afterSeq, FeedListener listener) {
      return feeds.computeIfAbsent(turnId, k -> new TurnFeed()).follow(afterSeq, listener);
    }

    @Override
    public void endFeed(String turnId, Duration keep) {
      TurnFeed feed = feeds.get(turnId);
      if (feed != null) {
        timer.schedule(() -> feeds.remove(turnId, feed), keep.toMillis(), TimeUnit.MILLISECONDS);
      }
    }

    @Override
    public void receiveMail(MailHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
    }

    @Override
    public CompletableFuture<String> send(String nodeId, String kind, String body,
        Duration deadline) {
      checkSize(body);
      Node to = nodes.get(nodeId);
      if (to == null || to.closed) {
        return CompletableFuture.failedFuture(
            new ClusterException("node " + nodeId + " is not in the cluster"));
      }
      CompletableFuture<String> answer = new CompletableFuture<>();
      try {
        mail.execute(() -> deliver(to, nodeId, kind, body, answer));
      } catch (RejectedExecutionException e) {
        return CompletableFuture.failedFuture(
            new ClusterException("node " + nodeId + " has too many requests waiting"));
      }
      timer.schedule(() -> answer.completeExceptionally(new ClusterException("node " + nodeId
          + " did not answer within " + deadline.toMillis() + " ms")),
          deadline.toMillis(), TimeUnit.MILLISECONDS);
      return answer;
    }

    private void deliver(Node to, String nodeId, String kind, String body,
        CompletableFuture<String> answer) {
      MailHandler h = to.handler;
      try {
        if (h == null) {
          throw new ClusterException("node " + nodeId + " takes no mail yet");
        }
        answer.complete(h.answer(id, kind, body));
      } catch (Exception e) {
        answer.completeExceptionally(e instanceof ClusterException ? e
            : new ClusterException(String.valueOf(e.getMessage()), e));
      }
    }

    @Override
    public boolean reachable() {
      return !closed;
    }

    @Override
    public void close() {
      closed = true;
      nodes.remove(id, this);
    }
  }

  /** Extends {@code lease} in {@code held} (keyed by its drone id) if it is live and current. */
  private static boolean renewIn(Map<String, HeldLease> held, Cluster.Lease lease, Duration ttl) {
    HeldLease[] renewed = new HeldLease[1];
    held.computeIfPresent(lease.droneId(), (k, h) -> {
      if (h.lease().equals(lease) && h.live()) {
        renewed[0] = new HeldLease(lease, deadline(ttl));
        return renewed[0];
      }
      return h;
    });
    return renewed[0] != null;
  }

  private static long deadline(Duration ttl) {
    return System.nanoTime() + ttl.toNanos();
  }

  static void checkSize(String text) {
    Cluster.FeedAppend.checkSize(text);
  }

  /** One turn's events and the subscriptions that follow them, under its own lock. */
  private static final class TurnFeed {
    private final ArrayList<Cluster.FeedEvent> events = new ArrayList<>();
    private final List<Follower> followers = new ArrayList<>();
    private long last = -1;

    synchronized boolean append(Cluster.FeedEvent e) {
      if (e.seq() <= last) {
        return false;
      }
      last = e.seq();
      if (events.size() >= MAX_FEED_EVENTS) {
        events.subList(0, events.size() - MAX_FEED_EVENTS + 1).clear();
      }
      events.add(e);
      for (Follower f : followers) {
        f.deliver(e);
      }
      return true;
    }

    synchronized List<Cluster.FeedEvent> after(long afterSeq, int max) {
      List<Cluster.FeedEvent> out = new ArrayList<>();
      for (Cluster.FeedEvent e : events) {
        if (e.seq() > afterSeq && out.size() < max) {
          out.add(e);
        }
      }
      return out;
    }

    synchronized Cluster.Subscription follow(long afterSeq, Cluster.FeedListener listener) {
      Follower f = new Follower(listener);
      for (Cluster.FeedEvent e : events) {
        if (e.seq() > afterSeq) {
          f.deliver(e);
        }
      }
      followers.add(f);
      return () -> {
        f.closed = true;
        synchronized (TurnFeed.this) {
          followers.remove(f);
        }
      };
    }
  }

  /** A subscription: its listener called on the appending thread, under the feed's lock. */
  private static final class Follower {
    private static final org.slf4j.Logger log =
        org.slf4j.LoggerFactory.getLogger(InProcessCluster.class);
    private final Cluster.FeedListener listener;
    volatile boolean closed;

    Follower(Cluster.FeedListener listener) {
      this.listener = listener;
    }

    void deliver(Cluster.FeedEvent e) {
      if (closed) {
        return;
      }
      try {
        listener.onEvent(e);
      } catch (RuntimeException ex) {
        log.warn("a turn feed's listener failed on event {}: {}", e.seq(), ex.toString());
      }
    }
  }
}
