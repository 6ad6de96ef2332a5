package dev.gadget.cluster.redis.internal.peer;

import dev.gadget.core.spi.Cluster;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events pushed between nodes, ahead of the feed (docs/CLUSTER.md, "Pushed between nodes"):
 * each node listens on a peer address it announces in Redis, opens a link to every other node
 * it finds there ({@link PeerLink}, on which it only writes) and reads the links the others
 * open to it ({@link PeerInbound}). A node tells each other node which turns its pages follow;
 * when it publishes an event of a turn another node follows, it writes it on its link to that
 * node at once, on the publishing thread. Each subscription takes a pushed event only as the
 * very next one ({@link PushedChain}), so the feed stays what makes the events whole: a link
 * down, slow or not yet open costs time, never an event, and never repeats one.
 */
public final class PeerHub implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PeerHub.class);
  /** The most links other nodes may have open to this one. */
  static final int MAX_INBOUND = 256;
  /** The most turns one link may follow (the live turns of a whole cluster are far fewer). */
  static final int MAX_FOLLOWS = 100_000;
  private static final int CONNECT_MILLIS = 2_000;
  private static final long ANNOUNCE_MILLIS = 2_000;

  private final String nodeId;
  private final PeerHandshake handshake;
  private final ServerSocket server;
  private final String address;
  private final Function<String, Map<String, String>> directory;
  private final ScheduledExecutorService timer;
  private final ExecutorService connector;
  private final Thread acceptor;
  /** This node's subscriptions, by turn. */
  private final Map<String, List<PushedChain>> local = new ConcurrentHashMap<>();
  /** Per turn, the links from the nodes that follow it. */
  private final Map<String, Set<PeerInbound>> followers = new ConcurrentHashMap<>();
  private final Map<String, PeerLink> links = new ConcurrentHashMap<>();
  private final Set<String> connecting = ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.AtomicBoolean announcing =
      new java.util.concurrent.atomic.AtomicBoolean();
  private final Set<PeerInbound> inbound = ConcurrentHashMap.newKeySet();
  private final LongAdder pushed = new LongAdder();
  private volatile boolean closed;

  /**
   * Listens on {@code listen} (port 0: any free one) and starts announcing itself.
   *
   * @param key the cluster's peer key, the same on every node (never logged)
   * @param directory announces this node's address ({@code host:port}) and returns every
   *     node's by id, this one's included; may throw when Redis is away
   * @throws IOException when the address cannot be listened on
   */
  public PeerHub(String nodeId, byte[] key, InetSocketAddress listen,
      Function<String, Map<String, String>> directory) throws IOException {
    this.nodeId = nodeId;
    this.handshake = new PeerHandshake(key, nodeId);
    this.directory = directory;
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(listen, 64);
    this.address = listen.getHostString() + ":" + server.getLocalPort();
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "gadget-peer-timer-"));
    // its queue holds at most one announce (announcing) and one connect per node (connecting)
    this.connector = Executors.newSingleThreadExecutor(r -> daemon(r, "gadget-peer-connect-"));
    this.acceptor = daemon(this::accept, "gadget-peer-accept-");
    acceptor.start();
    timer.scheduleWithFixedDelay(() -> { // Redis may be slow: not on the links' timer
      if (announcing.compareAndSet(false, true)) {
        connector.execute(this::announce);
      }
    }, 0, ANNOUNCE_MILLIS, TimeUnit.MILLISECONDS);
    timer.scheduleWithFixedDelay(this::ping, 1, 1, TimeUnit.SECONDS);
  }

  /** Where this node listens, as announced: {@code host:port}. */
  public String address() {
    return address;
  }

  /** How many events subscriptions here took from pushes (tests, benchmarks). */
  public long pushedEvents() {
    return pushed.sum();
  }

  /** The nodes this node has an open link to. */
  public Set<String> linkedPeers() {
    return Set.copyOf(links.keySet());
  }

  /** Whether node {@code peerId} told this one that it follows {@code turnId} (tests). */
  boolean followedBy(String turnId, String peerId) {
    Set<PeerInbound> s = followers.get(turnId);
    return s != null && s.stream().anyMatch(in -> in.peerId().equals(peerId));
  }

  /**
   * Follows a turn from the feed ({@code feed}) and from pushes, each event once, in order.
   */
  public Cluster.Subscription follow(String turnId, long afterSeq, Cluster.FeedListener listener,
      Function<Cluster.FeedListener, Cluster.Subscription> feed) {
    PushedChain chain = new PushedChain(listener, afterSeq);
    local.compute(turnId, (k, chains) -> { // told under the turn's entry: in the order made
      List<PushedChain> l = chains == null ? new CopyOnWriteArrayList<>() : chains;
      if (l.isEmpty()) {
        tellAll(PeerFrames.FOLLOW, turnId);
      }
      l.add(chain);
      return l;
    });
    Cluster.Subscription fromFeed = feed.apply(chain::fromFeed);
    return () -> {
      chain.close();
      fromFeed.close();
      local.computeIfPresent(turnId, (k, l) -> {
        l.remove(chain);
        if (!l.isEmpty()) {
          return l;
        }
        tellAll(PeerFrames.UNFOLLOW, turnId);
        return null;
      });
    };
  }

  /** Pushes an event this node is about to append to the nodes that follow its turn. */
  public void publish(Cluster.FeedAppend a, long previousSeq) {
    Set<PeerInbound> to = followers.get(a.turnId());
    if (to == null || to.isEmpty()) {
      return;
    }
    ByteBuffer frame = PeerFrames.event(a.turnId(), previousSeq, a.seq(), a.event(), a.json());
    for (PeerInbound in : to) {
      PeerLink link = links.get(in.peerId());
      if (link != null) {
        link.send(frame.duplicate());
      }
    }
  }

  void received(PeerInbound from, PeerFrames.Frame f) {
    switch (f.type()) {
      case PeerFrames.EVENT -> {
        List<PushedChain> chains = local.get(f.turnId());
        if (chains != null) {
          Cluster.FeedEvent e = new Cluster.FeedEvent(f.seq(), f.event(), f.json());
          for (PushedChain c : chains) {
            if (c.fromPeer(f.previousSeq(), e)) {
              pushed.increment();
            }
          }
        }
      }
      case PeerFrames.FOLLOW -> {
        if (from.follows.get() >= MAX_FOLLOWS) {
          throw new PeerException("it follows more than " + MAX_FOLLOWS + " turns");
        }
        followers.compute(f.turnId(), (k, s) -> {
          Set<PeerInbound> set = s == null ? ConcurrentHashMap.newKeySet() : s;
          if (set.add(from)) {
            from.follows.incrementAndGet();
          }
          return set;
        });
      }
      case PeerFrames.UNFOLLOW -> followers.computeIfPresent(f.turnId(), (k, s) -> {
        if (s.remove(from)) {
          from.follows.decrementAndGet();
        }
        return s.isEmpty() ? null : s;
      });
      default -> { } // PING: the link lives
    }
  }

  void opened(PeerInbound in) {
    log.debug("link from {} open", in.peerId());
  }

  void closed(PeerInbound in) {
    inbound.remove(in);
    for (String turnId : followers.keySet()) {
      followers.computeIfPresent(turnId, (k, s) -> {
        s.remove(in);
        return s.isEmpty() ? null : s;
      });
    }
  }

  private void tellAll(byte type, String turnId) {
    for (PeerLink link : links.values()) {
      link.send(PeerFrames.follow(type, turnId));
    }
  }

  private void accept() {
    while (!closed) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        if (!closed) {
          log.warn("peer address {}: {}", address, e.getMessage());
        }
        return;
      }
      PeerInbound in = new PeerInbound(s, this, handshake);
      if (inbound.size() >= MAX_INBOUND) { // before any timer task: a flood queues nothing
        log.warn("a link from {} refused: {} links are open already", s.getRemoteSocketAddress(),
            MAX_INBOUND);
        in.close();
        continue;
      }
      try {
        timer.schedule(in::closeUnlessOpened, PeerInbound.SILENT_MILLIS, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        in.close(); // closing
        continue;
      }
      inbound.add(in);
      daemon(in, "gadget-peer-in-").start(); // at most MAX_INBOUND of these (above)
    }
  }

  private void announce() {
    Map<String, String> nodes;
    try {
      nodes = directory.apply(address);
    } catch (RuntimeException e) {
      log.debug("peers not looked up now: {}", e.getMessage());
      return;
    } finally {
      announcing.set(false);
    }
    links.forEach((id, link) -> {
      if (!link.where.equals(nodes.get(id))) { // gone from the directory, or moved
        link.close("node " + id + " is no longer announced at " + link.where);
      }
    });
    nodes.forEach((id, where) -> {
      if (!id.equals(nodeId) && !links.containsKey(id) && connecting.add(id)) {
        connector.execute(() -> connect(id, where));
      }
    });
  }

  private void connect(String peerId, String where) {
    try {
      int colon = where.lastIndexOf(':');
      InetSocketAddress to = new InetSocketAddress(where.substring(0, colon),
          Integer.parseInt(where.substring(colon + 1)));
      PeerLink link = PeerLink.open(to, where, peerId, handshake, CONNECT_MILLIS, timer,
          l -> links.remove(l.peerId, l));
      links.put(peerId, link);
      log.info("linked to node {} at {}", peerId, where);
      for (String turnId : local.keySet()) {
        local.computeIfPresent(turnId, (k, l) -> {
          link.send(PeerFrames.follow(PeerFrames.FOLLOW, turnId));
          return l;
        });
      }
      if (closed) {
        link.close("this node is closing");
      }
    } catch (PeerException e) {
      log.warn("no link to node {} at {}: {}", peerId, where, e.getMessage());
    } catch (IOException | RuntimeException e) {
      log.debug("no link to node {} at {} now: {}", peerId, where, e.getMessage());
    } finally {
      connecting.remove(peerId);
    }
  }

  private void ping() {
    links.values().forEach(PeerLink::pingIfIdle);
  }

  private Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name + nodeId);
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      log.debug("closing the peer address: {}", e.getMessage());
    }
    links.values().forEach(l -> l.close("this node is closing"));
    inbound.forEach(PeerInbound::close);
    timer.shutdownNow();
    connector.shutdownNow();
  }

  @Override
  public String toString() {
    return "PeerHub[node " + nodeId + " at " + address + "]";
  }
}
