package dev.gadget.cluster.redis;

import dev.gadget.cluster.redis.internal.FeedAppends;
import dev.gadget.cluster.redis.internal.FeedEntries;
import dev.gadget.cluster.redis.internal.FeedFollower;
import dev.gadget.cluster.redis.internal.Keys;
import dev.gadget.cluster.redis.internal.Mailbox;
import dev.gadget.cluster.redis.internal.RedisCalls;
import dev.gadget.cluster.redis.internal.Scripts;
import dev.gadget.cluster.redis.internal.peer.PeerHub;
import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A {@link Cluster} on Redis (5.0 or later; tested with Debian's {@code redis-server}) through
 * Lettuce. Keys, all under {@link Builder#prefix} (docs/CLUSTER.md): a drone's lease is a string
 * {@code drone:{id}} = "node fence" with a time to live; a turn's feed is a stream
 * {@code turn:{id}} of entries that each hold a run of its events (at most 512 events and about
 * 1 MiB, {@code FeedEntries}), each entry's id {@code 0-(seq+1)} of its last event, at most
 * about 100,000 entries, gone an hour after its last append or {@code keep} after its end; a
 * chat's claim is a string {@code chat:{id}} = the turn's id with a time to live; the fencing
 * numbers come from the counter {@code fence}; a node's mail is a stream {@code mail:{node}}.
 *
 * <p>Operations per batch of feed events ({@link #appendAll}), in one pipelined round trip and
 * without Lua: per feed in the batch, one {@code XADD} per entry (and a {@code PEXPIRE} once a
 * minute, an {@code XREVRANGE} the first time this node appends to the feed); each following
 * node reads many entries per {@code XREAD}.
 *
 * <p>Three connections per node: commands, the feed reader's blocking reads, the mailbox's.
 * Every command waits at most {@link Builder#timeout} (a blocking read one second more); while
 * Redis is down, calls fail at once with a {@link ClusterException} that says so, the failure
 * is logged once, and Lettuce reconnects in the background. Thread-safe.
 */
public final class RedisCluster implements Cluster {
  /**
   * The most entries a turn's feed keeps (trimmed approximately, oldest first); an entry holds
   * one or more events.
   */
  public static final long MAX_FEED_ENTRIES = 100_000;
  /** A feed whose turn never ended (its node died) goes this long after its last event. */
  private static final long FEED_IDLE_KEEP_MILLIS = 3_600_000;
  /** How long a node's peer address stays announced (renewed every 2 s). */
  private static final long PEER_TTL_MILLIS = 10_000;

  private final String nodeId;
  private final Keys keys;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> redis;
  private final RedisCalls calls;
  private final Scripts scripts;
  private final FeedAppends appends;
  private final FeedFollower follower;
  private final Mailbox mailbox;
  private final ScheduledExecutorService timer;
  /** Events pushed between nodes ahead of the feeds; null: off. */
  private final PeerHub peers;

  private RedisCluster(Builder b) {
    this.nodeId = Objects.requireNonNull(b.nodeId, "nodeId");
    this.keys = new Keys(b.prefix);
    RedisURI uri = RedisURI.create(Objects.requireNonNull(b.uri, "uri"));
    uri.setTimeout(b.timeout);
    String address = uri.getHost() + ":" + uri.getPort();
    this.calls = new RedisCalls(address, b.timeout.toMillis());
    this.client = RedisClient.create(uri);
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(b.timeout))
        .build());
    try {
      this.connection = client.connect();
      this.redis = connection.sync();
      redis.ping();
      StatefulRedisConnection<String, String> reads = client.connect();
      reads.setTimeout(b.timeout.plusMillis(FeedFollower.BLOCK_MILLIS));
      StatefulRedisConnection<String, String> mail = client.connect();
      mail.setTimeout(b.timeout.plusMillis(FeedFollower.BLOCK_MILLIS));
      this.scripts = new Scripts(redis);
      this.appends = new FeedAppends(keys, connection, b.timeout.toMillis(), MAX_FEED_ENTRIES,
          FEED_IDLE_KEEP_MILLIS);
      this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gadget-redis-timer-" + nodeId);
        t.setDaemon(true);
        return t;
      });
      this.follower = new FeedFollower(keys, calls, reads, redis, nodeId);
      this.mailbox = new Mailbox(keys, calls, nodeId, mail, redis, timer);
    } catch (RuntimeException e) {
      client.shutdown();
      throw new ClusterException("Redis at " + address + " could not be reached: "
          + e.getMessage(), e);
    }
    try {
      this.peers = b.peerListen == null ? null
          : new PeerHub(nodeId, b.peerKey, b.peerListen, this::announce);
    } catch (IOException e) {
      close();
      throw new ClusterException("cannot listen for the other nodes on " + b.peerListen + ": "
          + e.getMessage(), e);
    }
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public String nodeId() {
    return nodeId;
  }

  @Override
  public Lease acquire(String droneId, Duration ttl) {
    long fence = calls.call("leased drone " + droneId, () -> scripts.run(Scripts.ACQUIRE,
        new String[] {keys.drone(droneId), keys.fence()}, nodeId,
        String.valueOf(ttl.toMillis())));
    return new Lease(droneId, nodeId, fence);
  }

  /** One script: checks the lease, raises the counter to the floor, increments it, sets it. */
  @Override
  public Lease refence(Lease lease, long floor, Duration ttl) {
    long fence = calls.call("numbered its lease of drone " + lease.droneId() + " again", () ->
        scripts.run(Scripts.REFENCE, new String[] {keys.drone(lease.droneId()), keys.fence()},
            held(lease), String.valueOf(floor), nodeId, String.valueOf(ttl.toMillis())));
    return fence == 0 ? null : new Lease(lease.droneId(), nodeId, fence);
  }

  @Override
  public boolean renew(Lease lease, Duration ttl) {
    return calls.call("renewed its lease of drone " + lease.droneId(), () -> scripts.run(
        Scripts.RENEW, new String[] {keys.drone(lease.droneId())}, held(lease),
        String.valueOf(ttl.toMillis()))) == 1;
  }

  @Override
  public void release(Lease lease) {
    calls.call("released drone " + lease.droneId(), () -> scripts.run(Scripts.RELEASE,
        new String[] {keys.drone(lease.droneId())}, held(lease)));
  }

  @Override
  public Optional<Lease> locate(String droneId) {
    String held = calls.call("looked for drone " + droneId, () -> redis.get(keys.drone(droneId)));
    if (held == null) {
      return Optional.empty();
    }
    int space = held.lastIndexOf(' ');
    return Optional.of(new Lease(droneId, held.substring(0, space),
        Long.parseLong(held.substring(space + 1))));
  }

  /** One {@code GET} of the counter {@link Scripts#ACQUIRE} increments; 0 while it is absent. */
  @Override
  public long lastFence() {
    String fence = calls.call("read the fencing counter", () -> redis.get(keys.fence()));
    try {
      return fence == null ? 0 : Long.parseLong(fence);
    } catch (NumberFormatException e) {
      throw new ClusterException("the fencing counter " + keys.fence() + " in Redis holds \""
          + fence + "\", not a number: another program wrote it", e);
    }
  }

  /** {@code SET chat:{id} turn NX PX ttl}; when taken, extended if it is this very turn's. */
  @Override
  public boolean claimChat(String sessionId, String turnId, Duration ttl) {
    String key = keys.chat(sessionId);
    return calls.call("claimed chat " + sessionId, () ->
        "OK".equals(redis.set(key, turnId, SetArgs.Builder.nx().px(ttl.toMillis())))
            || scripts.run(Scripts.RENEW, new String[] {key}, turnId,
                String.valueOf(ttl.toMillis())) == 1);
  }

  @Override
  public boolean renewChat(String sessionId, String turnId, Duration ttl) {
    return calls.call("renewed its claim of chat " + sessionId, () -> scripts.run(Scripts.RENEW,
        new String[] {keys.chat(sessionId)}, turnId, String.valueOf(ttl.toMillis()))) == 1;
  }

  @Override
  public void releaseChat(String sessionId, String turnId) {
    calls.call("released chat " + sessionId, () -> scripts.run(Scripts.RELEASE,
        new String[] {keys.chat(sessionId)}, turnId));
  }

  @Override
  public Optional<String> chatClaim(String sessionId) {
    return Optional.ofNullable(calls.call("looked for the claim of chat " + sessionId,
        () -> redis.get(keys.chat(sessionId))));
  }

  private static String held(Lease lease) {
    return lease.nodeId() + " " + lease.fence();
  }

  @Override
  public boolean append(String turnId, long seq, String event, String json) {
    return appendAll(List.of(new FeedAppend(turnId, seq, event, json)))[0];
  }

  /** The whole batch in one round trip: its entries pipelined on the command connection. */
  @Override
  public boolean[] appendAll(List<FeedAppend> batch) {
    for (FeedAppend a : batch) {
      FeedAppend.checkSize(a.json());
    }
    if (batch.isEmpty()) {
      return new boolean[0];
    }
    if (!calls.reachable()) {
      appends.forgetAll(); // Redis may come back without its data
    }
    String what = batch.size() == 1 ? "relayed an event of turn " + batch.get(0).turnId()
        : "relayed " + batch.size() + " events of live turns";
    return calls.call(what, () -> appends.append(batch));
  }

  @Override
  public List<FeedEvent> read(String turnId, long afterSeq, int max) {
    List<StreamMessage<String, String>> found = calls.call("read turn " + turnId, () ->
        redis.xrange(keys.turn(turnId), Range.create(Keys.feedId(afterSeq + 1), "+"),
            Limit.from(max)));
    List<FeedEvent> events = new ArrayList<>();
    long last = afterSeq;
    for (StreamMessage<String, String> m : found) {
      for (FeedEvent e : FeedEntries.unpack(m.getBody(), last)) {
        if (events.size() == max) {
          return events;
        }
        events.add(e);
        last = e.seq();
      }
    }
    return events;
  }

  @Override
  public Subscription follow(String turnId, long afterSeq, FeedListener listener) {
    return peers == null ? follower.follow(turnId, afterSeq, listener)
        : peers.follow(turnId, afterSeq, listener, l -> follower.follow(turnId, afterSeq, l));
  }

  /** {@inheritDoc} With {@link Builder#peers}: pushed to the nodes that follow the turn. */
  @Override
  public void publishing(FeedAppend event, long previousSeq) {
    if (peers != null) {
      peers.publish(event, previousSeq);
    }
  }

  /** Where this node listens for the others ({@link Builder#peers}), if it does. */
  public Optional<String> peerAddress() {
    return Optional.ofNullable(peers).map(PeerHub::address);
  }

  /** How many followed events this node took from pushes rather than the feeds. */
  public long pushedEvents() {
    return peers == null ? 0 : peers.pushedEvents();
  }

  /** Announces this node's peer address; every live node's, by id. */
  private Map<String, String> announce(String address) {
    return calls.call("announced its peer address", () -> {
      long now = System.currentTimeMillis();
      redis.zadd(keys.peers(), now + PEER_TTL_MILLIS, nodeId + " " + address);
      redis.zremrangebyscore(keys.peers(), Range.create(0, now));
      Map<String, String> nodes = new HashMap<>();
      for (String m : redis.zrange(keys.peers(), 0, -1)) {
        int space = m.indexOf(' ');
        if (space > 0) {
          nodes.put(m.substring(0, space), m.substring(space + 1));
        }
      }
      return nodes;
    });
  }

  @Override
  public void endFeed(String turnId, Duration keep) {
    appends.forget(turnId);
    calls.call("ended turn " + turnId, () -> redis.pexpire(keys.turn(turnId),
        Math.max(1, keep.toMillis())));
  }

  @Override
  public void receiveMail(MailHandler handler) {
    mailbox.receive(Objects.requireNonNull(handler, "handler"));
  }

  @Override
  public CompletableFuture<String> send(String to, String kind, String body, Duration deadline) {
    FeedAppend.checkSize(body);
    return mailbox.send(to, kind, body, deadline);
  }

  @Override
  public boolean reachable() {
    return calls.reachable();
  }

  @Override
  public void close() {
    if (peers != null) {
      peers.close();
    }
    follower.close();
    mailbox.close();
    timer.shutdownNow();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  @Override
  public String toString() {
    return "RedisCluster[node " + nodeId + "]";
  }

  /** Builds a {@link RedisCluster}. */
  public static final class Builder {
    private String uri;
    private String nodeId;
    private String prefix = "gadget:";
    private Duration timeout = Duration.ofSeconds(2);
    private InetSocketAddress peerListen;
    private byte[] peerKey;

    /** Where Redis is: {@code redis://host:port} (a password in it never reaches a log). */
    public Builder uri(String uri) {
      this.uri = Objects.requireNonNull(uri, "uri");
      return this;
    }

    /** This node's id, unique among the running nodes. Required. */
    public Builder nodeId(String nodeId) {
      this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
      return this;
    }

    /** The prefix of every key (default {@code gadget:}): one Redis, several deployments. */
    public Builder prefix(String prefix) {
      this.prefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /** How long a command may take before it fails (default 2 s). */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("the timeout must be positive");
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * Pushes a turn's events straight to the other nodes whose pages follow it, ahead of its
     * feed (docs/CLUSTER.md, "Pushed between nodes"): this node listens on {@code listen}, which
     * it announces to them as its host and port (so give an address they can reach, not a
     * wildcard), and each link proves both ends hold {@code key}, the same on every node (at
     * least 16 bytes; never logged). Default: off, events cross nodes through Redis only.
     */
    public Builder peers(InetSocketAddress listen, byte[] key) {
      Objects.requireNonNull(listen, "listen");
      if (key == null || key.length < 16) {
        throw new IllegalArgumentException("the peer key must be at least 16 bytes");
      }
      if (listen.getAddress() != null && listen.getAddress().isAnyLocalAddress()) {
        throw new IllegalArgumentException("the peer address is announced to the other nodes: "
            + "give one they can reach, not " + listen.getHostString());
      }
      this.peerListen = listen;
      this.peerKey = key.clone();
      return this;
    }

    /**
     * Connects to Redis and starts this node's readers.
     *
     * @throws ClusterException when Redis cannot be reached
     */
    public RedisCluster build() {
      return new RedisCluster(this);
    }
  }
}
