package dev.gadget.cluster.redis.internal;

import dev.gadget.core.spi.Cluster.FeedAppend;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Appends feed events in batches, without Lua: a batch's events are grouped by feed (each
 * feed's order kept), each feed's run packed into as few stream entries as the bounds allow
 * ({@link FeedEntries}), and per feed one plain {@code XADD} with an explicit id per entry (and
 * a {@code PEXPIRE} when this node has not set the feed's time to live in the last 1/60 of it:
 * a minute of the hour a feed is kept) are pipelined on the node's command connection, their
 * answers awaited together: one round trip per batch. An entry whose id is not above the feed's last is refused
 * by Redis ("equal or smaller"): its events were repeats, not appended.
 *
 * <p>Which events were new (the answers) is counted from the feed's last number, which this
 * node remembers from its own appends; for a feed it has not appended to yet, one
 * {@code XREVRANGE … COUNT 1} in the same pipeline asks. An event another node appended to the
 * same feed since may be answered as appended here (readers drop the repeat either way).
 */
public final class FeedAppends {
  /** The most feeds whose last number is remembered (the live ones; forgotten at 2× this). */
  private static final int REMEMBERED = 10_000;
  /**
   * How many times a feed's time to live is set again during it, at most: a feed appended to
   * all the time gets one {@code PEXPIRE} every keep / this, not one a batch.
   */
  private static final long REFRESHES = 60;

  private final Keys keys;
  private final RedisAsyncCommands<String, String> redis;
  private final long timeoutMillis;
  private final long maxEntries;
  private final long keepMillis;
  /** Per feed, the greatest number known to be in it (a lower bound once others append). */
  private final Map<String, Long> last = new ConcurrentHashMap<>();
  /** Per feed, when this node last set its time to live (System.nanoTime). */
  private final Map<String, Long> expired = new ConcurrentHashMap<>();
  private final long refreshNanos;

  /**
   * @param connection the node's command connection
   * @param timeoutMillis how long a batch may take
   * @param maxEntries the most entries a feed keeps (trimmed approximately)
   * @param keepMillis how long a feed stays after its last append
   */
  public FeedAppends(Keys keys, StatefulRedisConnection<String, String> connection,
      long timeoutMillis, long maxEntries, long keepMillis) {
    this.keys = keys;
    this.redis = connection.async();
    this.timeoutMillis = timeoutMillis;
    this.maxEntries = maxEntries;
    this.keepMillis = keepMillis;
    this.refreshNanos = TimeUnit.MILLISECONDS.toNanos(keepMillis / REFRESHES);
  }

  /** One feed's part of a batch. */
  private static final class Run {
    final String feed;
    final List<FeedAppend> events = new ArrayList<>();
    final List<Integer> indexes = new ArrayList<>();
    Long known;
    RedisFuture<List<StreamMessage<String, String>>> top;
    final List<FeedEntries.Entry> entries = new ArrayList<>();
    final List<RedisFuture<String>> added = new ArrayList<>();
    RedisFuture<Boolean> expiry;

    Run(String feed) {
      this.feed = feed;
    }

    long greatest() {
      return events.isEmpty() ? Long.MIN_VALUE : events.get(events.size() - 1).seq();
    }
  }

  /**
   * Appends {@code appends} in order; for each, whether it was appended. Throws Lettuce's
   * exceptions (the caller words them); then the remembered numbers are forgotten (Redis may
   * have lost its data).
   */
  public boolean[] append(List<FeedAppend> appends) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    boolean[] appended = new boolean[appends.size()];
    Map<String, Run> runs = new LinkedHashMap<>();
    for (int i = 0; i < appends.size(); i++) {
      FeedAppend a = appends.get(i);
      Run run = runs.computeIfAbsent(a.turnId(), Run::new);
      if (a.seq() > run.greatest()) { // else a repeat within the batch
        run.events.add(a);
        run.indexes.add(i);
      }
    }
    try {
      for (Run run : runs.values()) {
        String key = keys.turn(run.feed);
        run.known = last.get(run.feed);
        if (run.known == null) {
          run.top = redis.xrevrange(key, Range.create("-", "+"), Limit.from(1));
        }
        for (FeedEntries.Entry e : FeedEntries.pack(run.events)) {
          run.entries.add(e);
          run.added.add(redis.xadd(key, new XAddArgs().maxlen(maxEntries).approximateTrimming()
              .id(Keys.feedId(e.lastSeq())), e.body()));
        }
        Long set = expired.get(run.feed);
        long now = System.nanoTime();
        if (set == null || now - set > refreshNanos) {
          run.expiry = redis.pexpire(key, keepMillis);
          expired.put(run.feed, now);
        }
      }
      for (Run run : runs.values()) {
        answer(run, appended, deadline);
      }
    } catch (RuntimeException e) {
      forgetAll();
      throw e;
    }
    if (last.size() > 2 * REMEMBERED || expired.size() > 2 * REMEMBERED) {
      forgetAll();
    }
    return appended;
  }

  private void answer(Run run, boolean[] appended, long deadline) {
    long top;
    if (run.known != null) {
      top = run.known;
    } else {
      List<StreamMessage<String, String>> found = await(run.top, deadline);
      top = found == null || found.isEmpty() ? -1 : Keys.seqOf(found.get(0).getId());
    }
    for (int k = 0; k < run.entries.size(); k++) {
      FeedEntries.Entry e = run.entries.get(k);
      if (added(run.added.get(k), deadline)) {
        for (int j = e.from(); j < e.to(); j++) {
          appended[run.indexes.get(j)] = run.events.get(j).seq() > top;
        }
      }
      top = Math.max(top, e.lastSeq());
    }
    if (run.expiry != null) {
      await(run.expiry, deadline);
    }
    last.put(run.feed, top);
  }

  /** The feed ended: its number and time to live need not be remembered. */
  public void forget(String feed) {
    last.remove(feed);
    expired.remove(feed);
  }

  /**
   * Forgets every feed's number and time to live: Redis failed, and may have come back without
   * its data (the feeds appended again then get their time to live at once).
   */
  public void forgetAll() {
    last.clear();
    expired.clear();
  }

  /** Whether an entry was added; false when Redis refused its id as not above the last. */
  private static boolean added(RedisFuture<String> answer, long deadline) {
    try {
      await(answer, deadline);
      return true;
    } catch (RedisCommandExecutionException e) {
      if (e.getMessage() != null && e.getMessage().contains("equal or smaller")) {
        return false;
      }
      throw e;
    }
  }

  private static <T> T await(RedisFuture<T> answer, long deadline) {
    try {
      return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new RedisCommandTimeoutException("a batch of feed events was not answered in time");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisCommandInterruptedException(e);
    }
  }
}
