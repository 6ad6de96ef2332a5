package dev.gadget.cluster.redis.internal;

import dev.gadget.core.spi.Cluster.FeedAppend;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Appends feed events in batches: the batch's {@link Scripts#APPEND} calls are pipelined on the
 * node's command connection (which keeps their order) after a {@code SCRIPT LOAD} of the script
 * (so a Redis that lost its script cache runs them too), and their answers awaited together:
 * one round trip per batch, not per event.
 */
public final class FeedAppends {
  private final Keys keys;
  private final RedisAsyncCommands<String, String> redis;
  private final String sha;
  private final long timeoutMillis;
  private final String maxEvents;
  private final String keepMillis;

  /**
   * @param connection the node's command connection
   * @param timeoutMillis how long a batch may take
   * @param maxEvents the most events a feed keeps
   * @param keepMillis how long a feed stays after its last event
   */
  public FeedAppends(Keys keys, StatefulRedisConnection<String, String> connection,
      long timeoutMillis, long maxEvents, long keepMillis) {
    this.keys = keys;
    this.redis = connection.async();
    this.sha = connection.sync().digest(Scripts.APPEND);
    this.timeoutMillis = timeoutMillis;
    this.maxEvents = String.valueOf(maxEvents);
    this.keepMillis = String.valueOf(keepMillis);
  }

  /**
   * Appends {@code appends} in order; for each, whether it was appended. Throws Lettuce's
   * exceptions (the caller words them).
   */
  public boolean[] append(List<FeedAppend> appends) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    RedisFuture<String> loaded = redis.scriptLoad(Scripts.APPEND);
    List<RedisFuture<Long>> answers = new ArrayList<>(appends.size());
    for (FeedAppend a : appends) {
      answers.add(redis.evalsha(sha, ScriptOutputType.INTEGER,
          new String[] {keys.turn(a.turnId())}, Keys.feedId(a.seq()), a.event(), a.json(),
          maxEvents, keepMillis));
    }
    await(loaded, deadline);
    boolean[] appended = new boolean[appends.size()];
    for (int i = 0; i < appended.length; i++) {
      Long r = await(answers.get(i), deadline);
      appended[i] = r != null && r == 1;
    }
    return appended;
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
