package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmListener;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One call and its handle: sends its attempts one after another (waiting between them as the
 * {@link RetryPlanner} says), ends it with exactly one terminal event and its result, and cancels
 * it. State is confined to {@link #runner}; {@link #cancel()} and {@link #result()} may be called
 * from any thread.
 */
final class StreamCall implements LlmCall {
  final SerialRunner runner = new SerialRunner();
  final HttpStreamEngine engine;
  final HttpRequest request;
  final HttpStreamEngine.ParserFactory parsers;
  final CompletableFuture<LlmCompletion> result = new CompletableFuture<>();
  final AtomicBoolean cancelRequested = new AtomicBoolean();
  /** Where the parser hands the reply pieces; also delivers the terminal event. */
  final ListenerDelivery events;
  volatile StreamAttempt current;
  boolean terminated;
  int retries;
  ScheduledFuture<?> retryWait;

  StreamCall(HttpStreamEngine engine, HttpRequest request, HttpStreamEngine.ParserFactory parsers,
      LlmListener listener) {
    this.engine = engine;
    this.request = request;
    this.parsers = parsers;
    this.events = new ListenerDelivery(listener, cancelRequested, engine.warnedListener);
  }

  void sendAttempt() {
    if (terminated) {
      return;
    }
    if (cancelRequested.get()) {
      fail(engine.errors.cancelled(), null);
      return;
    }
    StreamAttempt a = new StreamAttempt(this);
    current = a;
    a.send();
  }

  /** Retries {@code e} if allowed, or ends the call with it. */
  void retryOrFail(LlmException e, boolean autoRetry, StreamAttempt from) {
    Duration delay = autoRetry && !cancelRequested.get() ? engine.retries.delay(e, retries)
        : null;
    if (delay == null) {
      fail(e, from);
      return;
    }
    retries++;
    engine.retries.logRetry(e.getMessage(), retries, delay);
    current = null;
    try {
      retryWait = engine.scheduler.schedule(() -> handOff(this::sendAttempt),
          delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException shutDown) {
      fail(e, from);
    }
  }

  /** Runs {@code task} on the runner from a thread that must not do the work (timer, JDK). */
  void handOff(Runnable task) {
    try {
      engine.executor.execute(() -> runner.execute(task));
    } catch (RejectedExecutionException e) {
      runner.execute(task);
    }
  }

  void complete(LlmCompletion completion) {
    if (terminated) {
      return;
    }
    if (cancelRequested.get()) {
      end(engine.errors.cancelled(), completion, current);
      return;
    }
    terminated = true;
    events.complete(completion);
    result.complete(completion);
  }

  void fail(LlmException error, StreamAttempt from) {
    if (terminated) {
      return;
    }
    end(error, from != null ? from.partial() : StreamAttempt.nothing(), from);
  }

  /** Ends the call with an error; once cancel() was called, the error is always CANCELLED. */
  void end(LlmException error, LlmCompletion partial, StreamAttempt from) {
    if (cancelRequested.get() && error.kind() != LlmException.Kind.CANCELLED) {
      error = engine.errors.cancelled();
    }
    terminated = true;
    if (retryWait != null) {
      retryWait.cancel(false);
    }
    if (from != null) {
      from.abort();
    }
    events.error(error, partial);
    result.completeExceptionally(error);
  }

  @Override
  public void cancel() {
    if (!cancelRequested.compareAndSet(false, true)) {
      return;
    }
    StreamAttempt a = current;
    if (a != null) {
      a.abort(); // close the connection now, even if a listener callback is running
    }
    runner.execute(() -> {
      if (retryWait != null) {
        retryWait.cancel(false);
      }
      fail(engine.errors.cancelled(), current);
    });
  }

  @Override
  public CompletableFuture<LlmCompletion> result() {
    return result;
  }
}
