package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmException;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one response body as the HTTP client delivers it, one chunk requested at a time: a 2xx
 * body goes through the call's parser, any other status keeps up to 64 KiB of body for the
 * error. Enforces the first-byte timeout until the body starts, then the idle timeout, and
 * after the stream's end marker drains the rest (to keep the connection) for an idle timeout at
 * most. Its subscriber methods run on the HTTP client's threads and only hand work to the call's
 * runner, where all state changes happen.
 */
final class BodyReader implements HttpResponse.BodySubscriber<Void> {
  private static final Logger log = LoggerFactory.getLogger(HttpStreamEngine.class);
  private static final int MAX_ERROR_BODY = 64 * 1024;

  private final StreamAttempt attempt;
  private final StreamCall call;
  private final HttpStreamEngine engine;
  private final HttpResponse.ResponseInfo info;
  private volatile Flow.Subscription subscription;
  private volatile ScheduledFuture<?> timer;
  private boolean errorMode;
  private ByteArrayOutputStream errorBody;
  private StreamParser parser;
  private boolean bodyStarted;
  private long lastActivity;

  BodyReader(StreamAttempt attempt, HttpResponse.ResponseInfo info) {
    this.attempt = attempt;
    this.call = attempt.call;
    this.engine = attempt.call.engine;
    this.info = info;
  }

  /** The parser of a 2xx body, once the body was subscribed to; else {@code null}. */
  StreamParser parser() {
    return parser;
  }

  /** Stops reading: cancels the subscription and the timer. Any thread. */
  void abort() {
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
    }
  }

  // ---- the subscriber: HTTP client threads ----

  @Override
  public CompletionStage<Void> getBody() {
    return CompletableFuture.completedFuture(null); // the response "completes" at headers
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (attempt.aborted) {
      s.cancel();
      return;
    }
    call.runner.execute(this::subscribed);
  }

  @Override
  public void onNext(List<ByteBuffer> item) {
    call.runner.execute(() -> data(item));
  }

  @Override
  public void onError(Throwable t) {
    call.runner.execute(() -> bodyFailed(t));
  }

  @Override
  public void onComplete() {
    call.runner.execute(this::bodyEnded);
  }

  // ---- runner tasks ----

  private void subscribed() {
    if (attempt.aborted || attempt.stale() || call.terminated) {
      subscription.cancel();
      return;
    }
    int status = info.statusCode();
    lastActivity = System.nanoTime();
    if (status >= 200 && status <= 299) {
      try {
        parser = call.parsers.create(call.events, info);
      } catch (RuntimeException e) {
        attempt.ended = true;
        call.fail(engine.errors.unreadable(e), attempt);
        return;
      }
      arm(attempt.startNanos + engine.firstByteTimeout.toNanos());
    } else {
      errorMode = true;
      errorBody = new ByteArrayOutputStream();
      arm(lastActivity + engine.idleTimeout.toNanos());
    }
    subscription.request(1);
  }

  private void data(List<ByteBuffer> buffers) {
    if (attempt.aborted || attempt.stale()) {
      subscription.cancel();
      return;
    }
    lastActivity = System.nanoTime();
    if (call.terminated) {
      subscription.request(1); // draining what follows the end marker: keeps the connection
      return;
    }
    if (errorMode) {
      for (ByteBuffer b : buffers) {
        int n = Math.min(b.remaining(), MAX_ERROR_BODY - errorBody.size());
        byte[] chunk = new byte[n];
        b.get(chunk);
        errorBody.write(chunk, 0, n);
      }
      if (errorBody.size() >= MAX_ERROR_BODY) {
        subscription.cancel();
        errorBodyEnded();
        return;
      }
    } else {
      try {
        for (ByteBuffer b : buffers) {
          if (b.hasRemaining()) {
            if (!bodyStarted) {
              bodyStarted = true;
              cancelTimer(); // from now on the idle timeout applies
              arm(lastActivity + engine.idleTimeout.toNanos());
            }
            parser.feed(b);
          }
        }
        if (parser.isDone()) {
          call.complete(parser.finish());
        }
      } catch (LlmException e) {
        attempt.ended = true;
        call.fail(e, attempt);
        return;
      } catch (RuntimeException e) {
        attempt.ended = true;
        call.fail(engine.errors.unreadable(e), attempt);
        return;
      }
    }
    lastActivity = System.nanoTime();
    subscription.request(1);
  }

  private void bodyEnded() {
    if (attempt.ended || call.current != attempt) {
      return;
    }
    cancelTimer();
    if (call.terminated) {
      attempt.ended = true;
      return;
    }
    if (errorMode) {
      errorBodyEnded();
      return;
    }
    attempt.ended = true;
    try {
      call.complete(parser.finish());
    } catch (LlmException e) {
      call.fail(e, attempt);
    } catch (RuntimeException e) {
      call.fail(engine.errors.unreadable(e), attempt);
    }
  }

  private void errorBodyEnded() {
    attempt.ended = true;
    cancelTimer();
    failWithStatus();
  }

  private void failWithStatus() {
    LlmException e = engine.errors.httpStatus(info.statusCode(), info.headers(),
        errorBody.toByteArray());
    call.retryOrFail(e, e.isRetryable(), attempt);
  }

  private void bodyFailed(Throwable t) {
    if (attempt.ended || call.current != attempt) {
      return;
    }
    attempt.ended = true;
    cancelTimer();
    if (call.terminated) {
      return;
    }
    if (errorMode) {
      failWithStatus();
    } else if (!bodyStarted) {
      call.retryOrFail(engine.errors.brokeBeforeStream(t), true, attempt);
    } else {
      call.fail(engine.errors.brokeOff(t), attempt);
    }
  }

  private void timerFired() {
    timer = null;
    if (attempt.ended || attempt.aborted || call.current != attempt) {
      return;
    }
    long now = System.nanoTime();
    long idle = engine.idleTimeout.toNanos();
    if (call.terminated) {
      if (now - lastActivity >= idle) {
        attempt.ended = true;
        subscription.cancel(); // the rest after the end marker never came
      } else {
        arm(lastActivity + idle);
      }
      return;
    }
    if (!errorMode && !bodyStarted) {
      long deadline = attempt.startNanos + engine.firstByteTimeout.toNanos();
      if (now - deadline >= 0) {
        attempt.ended = true;
        call.fail(engine.errors.noFirstByte(), attempt);
      } else {
        arm(deadline);
      }
      return;
    }
    long deadline = lastActivity + idle;
    if (now - deadline >= 0) {
      attempt.ended = true;
      call.fail(engine.errors.stalled(), attempt);
    } else {
      arm(deadline);
    }
  }

  private void arm(long deadlineNanos) {
    long delay = Math.max(0, deadlineNanos - System.nanoTime());
    try {
      timer = engine.scheduler.schedule(() -> call.handOff(this::timerFired), delay,
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.warn("LLM timer rejected a task; this call has no timeout");
    }
  }

  private void cancelTimer() {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      t.cancel(false);
      timer = null;
    }
  }
}
