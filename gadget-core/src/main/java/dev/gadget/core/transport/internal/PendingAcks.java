package dev.gadget.core.transport.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gadget.core.transport.TransportException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ack bookkeeping for one connection end: the acks it waits for, by id, each completed by the
 * peer's answer or failed by its timeout or by the connection closing, whichever comes first.
 */
final class PendingAcks {
  private final ScheduledExecutorService timer;
  private final Map<Long, CompletableFuture<List<JsonNode>>> pending = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();

  PendingAcks(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /** Waits for an ack to {@code event} into {@code future}; returns the ack id to send. */
  long register(String event, Duration timeout, CompletableFuture<List<JsonNode>> future) {
    long ackId = ids.incrementAndGet();
    pending.put(ackId, future);
    timer.schedule(() -> {
      if (pending.remove(ackId) != null) {
        future.completeExceptionally(timedOut(event, timeout));
      }
    }, timeout.toNanos(), TimeUnit.NANOSECONDS);
    return ackId;
  }

  /** The peer answered {@code ackId}; ignored when it already timed out or failed. */
  void complete(long ackId, List<JsonNode> reply) {
    CompletableFuture<List<JsonNode>> f = pending.remove(ackId);
    if (f != null) {
      f.complete(reply);
    }
  }

  /** The connection closed: every ack still awaited fails. */
  void failAll(String reason) {
    for (Long k : List.copyOf(pending.keySet())) {
      CompletableFuture<List<JsonNode>> f = pending.remove(k);
      if (f != null) {
        f.completeExceptionally(new TransportException("connection closed: " + reason));
      }
    }
  }

  /** The error of an ack to {@code event} that did not come within {@code timeout}. */
  static TransportException timedOut(String event, Duration timeout) {
    return new TransportException("no ack for '" + event + "' within " + timeout);
  }
}
