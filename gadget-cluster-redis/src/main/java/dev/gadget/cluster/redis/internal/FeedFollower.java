package dev.gadget.cluster.redis.internal;

import dev.gadget.core.spi.Cluster;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.UnblockType;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every feed this node follows, read by one thread with one blocking {@code XREAD} over all of
 * them on a connection of its own; a new subscription wakes the read ({@code CLIENT UNBLOCK}
 * from the command connection) so that it gets its backlog at once. An entry holds a run of
 * events ({@link FeedEntries}); each subscription gets each event once, in order: it
 * remembers the last seq it was given and drops the events at or below it.
 */
public final class FeedFollower implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FeedFollower.class);
  /** How long one XREAD blocks (the command timeout is longer). */
  public static final long BLOCK_MILLIS = 1_000;
  /** The most entries one XREAD returns per feed (each up to 512 events, about 1 MiB). */
  private static final int BATCH = 100;
  /** The pause before the next read once Redis failed. */
  private static final long RETRY_MILLIS = 200;

  private final Keys keys;
  private final RedisCalls calls;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  /** What this node follows, by the feed's key. */
  private final Map<String, Feed> feeds = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile Long blockedClient;
  private volatile boolean closed;

  /**
   * @param connection the follower's own connection (its reads block)
   * @param commands the node's command connection, to wake the follower
   */
  public FeedFollower(Keys keys, RedisCalls calls, StatefulRedisConnection<String, String> connection,
      RedisCommands<String, String> commands, String nodeId) {
    this.keys = keys;
    this.calls = calls;
    this.connection = connection;
    this.commands = commands;
    this.thread = new Thread(this::loop, "gadget-redis-feed-" + nodeId);
    thread.setDaemon(true);
    thread.start();
  }

  /** Follows {@code turnId} from after {@code afterSeq}. */
  public Cluster.Subscription follow(String turnId, long afterSeq, Cluster.FeedListener listener) {
    Sub sub = new Sub(listener, afterSeq);
    String key = keys.turn(turnId);
    feeds.compute(key, (k, feed) -> {
      Feed f = feed == null ? new Feed(k) : feed;
      f.subs.add(sub);
      return f;
    });
    wake();
    return () -> {
      sub.closed = true;
      feeds.computeIfPresent(key, (k, f) -> {
        f.subs.remove(sub);
        return f.subs.isEmpty() ? null : f;
      });
    };
  }

  private void wake() {
    Long id = blockedClient;
    if (id != null) {
      try {
        commands.clientUnblock(id, UnblockType.TIMEOUT);
      } catch (RuntimeException e) {
        log.debug("could not wake the feed reader: {}", e.toString());
      }
    }
  }

  private void loop() {
    RedisCommands<String, String> reader = connection.sync();
    List<XReadArgs.StreamOffset<String>> offsets = new ArrayList<>();
    while (!closed) {
      try {
        if (blockedClient == null) {
          blockedClient = reader.clientId();
        }
        if (feeds.isEmpty()) {
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
          continue;
        }
        offsets.clear();
        for (Feed f : feeds.values()) {
          XReadArgs.StreamOffset<String> offset = f.offset();
          if (offset != null) {
            offsets.add(offset);
          }
        }
        @SuppressWarnings("unchecked")
        XReadArgs.StreamOffset<String>[] streams = offsets.toArray(new XReadArgs.StreamOffset[0]);
        List<StreamMessage<String, String>> read =
            reader.xread(XReadArgs.Builder.block(BLOCK_MILLIS).count(BATCH), streams);
        calls.answered();
        if (read != null) {
          deliver(read);
        }
      } catch (RuntimeException e) {
        if (closed) {
          return;
        }
        calls.failed("read the turns it follows", e);
        blockedClient = null; // a new connection has a new id
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS));
      }
    }
  }

  private void deliver(List<StreamMessage<String, String>> read) {
    for (StreamMessage<String, String> m : read) {
      Feed feed = feeds.get(m.getStream());
      if (feed == null) {
        continue;
      }
      for (Cluster.FeedEvent event : FeedEntries.unpack(m.getBody(), Long.MIN_VALUE)) {
        for (Sub s : feed.subs) {
          s.deliver(event);
        }
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    wake();
    try {
      thread.join(TimeUnit.MILLISECONDS.toMillis(BLOCK_MILLIS * 3));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * One followed feed: its key, its subscriptions, and the offset its last read asked from,
   * made again only when that moves (one read a millisecond over a hundred feeds made a key, an
   * id and an offset for each: a third of a busy node's garbage).
   */
  private static final class Feed {
    final String key;
    final List<Sub> subs = new CopyOnWriteArrayList<>();
    /** Read and written on the follower's thread only. */
    private XReadArgs.StreamOffset<String> offset;
    private long offsetFrom;

    Feed(String key) {
      this.key = key;
    }

    /** Where the next read starts: after the seq its least advanced subscription was given. */
    XReadArgs.StreamOffset<String> offset() {
      long from = Long.MAX_VALUE;
      for (Sub s : subs) {
        from = Math.min(from, s.last);
      }
      if (from == Long.MAX_VALUE) {
        return null; // its last subscription has just gone
      }
      if (offset == null || from != offsetFrom) {
        offset = XReadArgs.StreamOffset.from(key, Keys.feedId(from));
        offsetFrom = from;
      }
      return offset;
    }
  }

  /** One subscription: called on the follower's thread only. */
  private static final class Sub {
    private final Cluster.FeedListener listener;
    /**
     * The seq this subscription was last given (or started after). The seq ids start at 0-1,
     * so from -1 reads from the first.
     */
    volatile long last;
    volatile boolean closed;

    Sub(Cluster.FeedListener listener, long afterSeq) {
      this.listener = listener;
      this.last = afterSeq;
    }

    void deliver(Cluster.FeedEvent e) {
      if (closed || e.seq() <= last) {
        return;
      }
      last = e.seq();
      try {
        listener.onEvent(e);
      } catch (RuntimeException ex) {
        log.warn("a turn feed's listener failed on event {}: {}", e.seq(), ex.toString());
      }
    }
  }
}
