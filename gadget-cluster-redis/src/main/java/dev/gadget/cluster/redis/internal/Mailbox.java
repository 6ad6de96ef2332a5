package dev.gadget.cluster.redis.internal;

import dev.gadget.core.spi.Cluster;
import dev.gadget.core.spi.ClusterException;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's mail: requests to it and answers to its own requests arrive on one stream of its
 * own, read by one thread with a blocking {@code XREAD}; requests are answered on a bounded
 * pool, each answer added to the asker's stream. A request past its deadline is not answered.
 */
public final class Mailbox implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Mailbox.class);
  private static final String ANSWER = "answer";
  /** The most messages a node's mail stream keeps. */
  private static final long MAX_MAIL = 10_000;
  /** A mail stream nobody writes to goes away after an hour. */
  private static final long MAIL_KEEP_MILLIS = 3_600_000;
  private static final long RETRY_MILLIS = 200;

  private final Keys keys;
  private final RedisCalls calls;
  private final String nodeId;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  private final ScheduledExecutorService timer;
  private final Map<String, CompletableFuture<String>> pending = new ConcurrentHashMap<>();
  private final AtomicLong requests = new AtomicLong();
  private final ThreadPoolExecutor handlers;
  private final Thread thread;
  private volatile Cluster.MailHandler handler;
  private volatile boolean closed;
  /** The id after which this node reads its mail; null until Redis has told it. */
  private String start;

  public Mailbox(Keys keys, RedisCalls calls, String nodeId,
      StatefulRedisConnection<String, String> connection, RedisCommands<String, String> commands,
      ScheduledExecutorService timer) {
    this.keys = keys;
    this.calls = calls;
    this.nodeId = nodeId;
    this.connection = connection;
    this.commands = commands;
    this.timer = timer;
    this.handlers = new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(1_000), r -> {
          Thread t = new Thread(r, "gadget-redis-mail-" + nodeId);
          t.setDaemon(true);
          return t;
        });
    handlers.allowCoreThreadTimeOut(true);
    // Where reading starts is settled before the node is handed out, so that mail sent to it
    // right after it is built is read (it once was looked up on the reading thread, which
    // skipped whatever had arrived before that thread got to it).
    try {
      this.start = top(connection.sync());
    } catch (RuntimeException e) {
      calls.failed("read its mail", e);
    }
    this.thread = new Thread(this::loop, "gadget-redis-mailbox-" + nodeId);
    thread.setDaemon(true);
    thread.start();
  }

  /** This node's handler from now on. */
  public void receive(Cluster.MailHandler h) {
    this.handler = h;
  }

  /** Sends a request; its answer completes the future, or the deadline fails it. */
  public CompletableFuture<String> send(String to, String kind, String body, Duration deadline) {
    String id = nodeId + "/" + requests.incrementAndGet();
    CompletableFuture<String> answer = new CompletableFuture<>();
    pending.put(id, answer);
    answer.whenComplete((a, e) -> pending.remove(id));
    timer.schedule(() -> answer.completeExceptionally(new ClusterException("node " + to
        + " did not answer within " + deadline.toMillis() + " ms")),
        deadline.toMillis(), TimeUnit.MILLISECONDS);
    Map<String, String> m = new HashMap<>();
    m.put("from", nodeId);
    m.put("kind", kind);
    m.put("body", body);
    m.put("id", id);
    m.put("until", String.valueOf(System.currentTimeMillis() + deadline.toMillis()));
    try {
      post(to, m, "send mail to node " + to);
    } catch (ClusterException e) {
      answer.completeExceptionally(e);
    }
    return answer;
  }

  private void post(String to, Map<String, String> message, String what) {
    String key = keys.mail(to);
    calls.call(what, () -> {
      commands.xadd(key, XAddArgs.Builder.maxlen(MAX_MAIL).approximateTrimming(), message);
      return commands.pexpire(key, MAIL_KEEP_MILLIS);
    });
  }

  private void loop() {
    RedisCommands<String, String> reader = connection.sync();
    String last = start;
    while (!closed) {
      try {
        if (last == null) {
          last = top(reader);
        }
        List<StreamMessage<String, String>> read = reader.xread(
            XReadArgs.Builder.block(FeedFollower.BLOCK_MILLIS).count(100),
            XReadArgs.StreamOffset.from(keys.mail(nodeId), last));
        calls.answered();
        if (read == null) {
          continue;
        }
        for (StreamMessage<String, String> m : read) {
          last = m.getId();
          take(m.getBody());
        }
      } catch (RuntimeException e) {
        if (closed) {
          return;
        }
        calls.failed("read its mail", e);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS));
      }
    }
  }

  /** The newest id on this node's mail stream: older mail is not its business. */
  private String top(RedisCommands<String, String> reader) {
    List<StreamMessage<String, String>> top = reader.xrevrange(keys.mail(nodeId),
        Range.unbounded(), Limit.from(1));
    return top.isEmpty() ? "0-0" : top.get(0).getId();
  }

  private void take(Map<String, String> m) {
    String id = m.getOrDefault("id", "");
    if (ANSWER.equals(m.get("kind"))) {
      CompletableFuture<String> waiting = pending.get(id);
      if (waiting != null) {
        String error = m.get("error");
        if (error != null) {
          waiting.completeExceptionally(new ClusterException(error));
        } else {
          waiting.complete(m.getOrDefault("body", ""));
        }
      }
      return;
    }
    long until = Long.parseLong(m.getOrDefault("until", "0"));
    if (System.currentTimeMillis() > until) {
      return; // the asker has given up already
    }
    try {
      handlers.execute(() -> answer(m, id));
    } catch (RejectedExecutionException e) {
      reply(m.get("from"), id, null, "node " + nodeId + " has too many requests waiting");
    }
  }

  private void answer(Map<String, String> m, String id) {
    Cluster.MailHandler h = handler;
    String from = m.getOrDefault("from", "");
    if (h == null) {
      reply(from, id, null, "node " + nodeId + " takes no mail yet");
      return;
    }
    try {
      reply(from, id, h.answer(from, m.getOrDefault("kind", ""), m.getOrDefault("body", "")),
          null);
    } catch (Exception e) {
      reply(from, id, null, String.valueOf(e.getMessage()));
    }
  }

  private void reply(String to, String id, String body, String error) {
    Map<String, String> m = new HashMap<>();
    m.put("kind", ANSWER);
    m.put("id", id);
    if (error != null) {
      m.put("error", error);
    } else {
      m.put("body", body == null ? "" : body);
    }
    try {
      post(to, m, "answer node " + to);
    } catch (ClusterException e) {
      log.debug("the answer to {} was lost: {}", id, e.getMessage());
    }
  }

  @Override
  public void close() {
    closed = true;
    handlers.shutdownNow();
    pending.values().forEach(f -> f.completeExceptionally(
        new ClusterException("node " + nodeId + " left the cluster")));
    // the reading thread ends when its connection closes (RedisCluster#close)
  }
}
