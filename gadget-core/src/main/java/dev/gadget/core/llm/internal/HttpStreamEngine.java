package dev.gadget.core.llm.internal;

import dev.gadget.core.Ids;
import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmCompletion;
import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.LlmToolCall;
import dev.gadget.core.llm.RetryPolicy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs streaming chat calls over {@link HttpClient}: sends the request, retries before the first
 * byte, reads the body through a {@link Flow.Subscriber} (no thread per call, per token, or per
 * idle stream), enforces the first-byte and idle timeouts on a shared scheduler, and delivers
 * events to the listener one at a time with exactly one terminal event.
 *
 * <p>The request's own timeout ({@link HttpRequest#timeout()}) covers the wait for the response
 * headers; after them the engine's timer takes over, since the JDK stops counting there.
 * Thread-safe; one engine serves any number of concurrent calls.
 */
public final class HttpStreamEngine {
  private static final Logger log = LoggerFactory.getLogger(HttpStreamEngine.class);
  private static final int MAX_ERROR_BODY = 64 * 1024;

  /** Makes the parser for a successful response. */
  @FunctionalInterface
  public interface ParserFactory {
    /**
     * A parser for this response.
     *
     * @param events where it hands the pieces
     * @param response the status and headers
     * @return the parser
     */
    StreamParser create(StreamEvents events, HttpResponse.ResponseInfo response);
  }

  private final String api;
  private final HttpClient http;
  private final Executor executor;
  private final ScheduledExecutorService scheduler;
  private final Duration firstByteTimeout;
  private final Duration idleTimeout;
  private final RetryPolicy retry;
  private final Clock clock;
  private final AtomicBoolean warnedRetry = new AtomicBoolean();
  private final AtomicBoolean warnedListener = new AtomicBoolean();

  /**
   * An engine.
   *
   * @param api the server's name for messages ("Ollama")
   * @param http the HTTP client
   * @param executor runs callbacks the scheduler triggers
   * @param scheduler the timer for timeouts and retry waits
   * @param firstByteTimeout from sending to the first body byte
   * @param idleTimeout the longest gap between body chunks
   * @param retry the retry policy
   * @param clock for {@code Retry-After} dates
   */
  public HttpStreamEngine(String api, HttpClient http, Executor executor,
      ScheduledExecutorService scheduler, Duration firstByteTimeout, Duration idleTimeout,
      RetryPolicy retry, Clock clock) {
    this.api = Objects.requireNonNull(api, "api");
    this.http = Objects.requireNonNull(http, "http");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.firstByteTimeout = Objects.requireNonNull(firstByteTimeout, "firstByteTimeout");
    this.idleTimeout = Objects.requireNonNull(idleTimeout, "idleTimeout");
    this.retry = Objects.requireNonNull(retry, "retry");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * Starts a call. Returns at once.
   *
   * @param request the request (sent again as is on a retry)
   * @param parsers makes the parser for a 2xx response
   * @param listener receives the call
   * @return the handle
   */
  public LlmCall start(HttpRequest request, ParserFactory parsers, LlmListener listener) {
    Call call = new Call(request, parsers, listener);
    call.runner.execute(call::sendAttempt);
    return call;
  }

  /** A new tool-call id for servers that send none. */
  public static String newToolCallId() {
    return "call_" + Ids.next();
  }

  private void logRetry(String what, int retryNo, Duration delay) {
    if (warnedRetry.compareAndSet(false, true)) {
      log.warn("{} request failed ({}); retry {} of {} in {} ms (further retries are logged at "
          + "DEBUG)", api, what, retryNo, retry.maxRetries(), delay.toMillis());
    } else {
      log.debug("{} request failed ({}); retry {} of {} in {} ms", api, what, retryNo,
          retry.maxRetries(), delay.toMillis());
    }
  }

  /** One call: its attempts, its listener, its result. State is confined to {@link #runner}. */
  private final class Call implements LlmCall {
    final SerialRunner runner = new SerialRunner();
    final HttpRequest request;
    final ParserFactory parsers;
    final LlmListener listener;
    final CompletableFuture<LlmCompletion> result = new CompletableFuture<>();
    final AtomicBoolean cancelRequested = new AtomicBoolean();
    final StreamEvents events = new GuardedEvents();
    volatile Attempt current;
    boolean terminated;
    int retries;
    ScheduledFuture<?> retryWait;
    boolean listenerFailed;

    Call(HttpRequest request, ParserFactory parsers, LlmListener listener) {
      this.request = request;
      this.parsers = parsers;
      this.listener = listener;
    }

    void sendAttempt() {
      if (terminated) {
        return;
      }
      if (cancelRequested.get()) {
        fail(cancelled(), null);
        return;
      }
      Attempt a = new Attempt(this);
      current = a;
      a.send();
    }

    /** Retries {@code e} if allowed, or ends the call with it. */
    void retryOrFail(LlmException e, boolean autoRetry, Attempt from) {
      if (autoRetry && retries < retry.maxRetries() && !cancelRequested.get()) {
        Duration delay = e.retryAfter().orElse(null);
        if (delay != null && delay.compareTo(retry.maxRetryAfter()) > 0) {
          fail(e, from);
          return;
        }
        if (delay == null) {
          delay = retry.backoff(retries, ThreadLocalRandom.current().nextDouble());
        }
        retries++;
        logRetry(e.getMessage(), retries, delay);
        current = null;
        try {
          retryWait = scheduler.schedule(() -> handOff(this::sendAttempt),
              delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutDown) {
          fail(e, from);
        }
        return;
      }
      fail(e, from);
    }

    void handOff(Runnable task) {
      try {
        executor.execute(() -> runner.execute(task));
      } catch (RejectedExecutionException e) {
        runner.execute(task);
      }
    }

    void complete(LlmCompletion completion) {
      if (terminated) {
        return;
      }
      if (cancelRequested.get()) {
        end(cancelled(), completion, current);
        return;
      }
      terminated = true;
      try {
        listener.onComplete(completion);
      } catch (RuntimeException e) {
        listenerThrew("onComplete", e);
      }
      result.complete(completion);
    }

    void fail(LlmException error, Attempt from) {
      if (terminated) {
        return;
      }
      LlmCompletion partial = from != null && from.parser != null ? from.parser.partial()
          : new LlmCompletion("", "", List.of(), null, FinishReason.OTHER);
      end(error, partial, from);
    }

    /** Ends the call with an error; once cancel() was called, the error is always CANCELLED. */
    void end(LlmException error, LlmCompletion partial, Attempt from) {
      if (cancelRequested.get() && error.kind() != LlmException.Kind.CANCELLED) {
        error = cancelled();
      }
      terminated = true;
      if (retryWait != null) {
        retryWait.cancel(false);
      }
      if (from != null) {
        from.abort();
      }
      try {
        listener.onError(error, partial);
      } catch (RuntimeException e) {
        listenerThrew("onError", e);
      }
      result.completeExceptionally(error);
    }

    void listenerThrew(String method, RuntimeException e) {
      if (!listenerFailed && warnedListener.compareAndSet(false, true)) {
        log.warn("LlmListener.{} threw; the call goes on (further failures are logged at DEBUG)",
            method, e);
      } else {
        log.debug("LlmListener.{} threw; the call goes on", method, e);
      }
      listenerFailed = true;
    }

    LlmException cancelled() {
      return new LlmException(LlmException.Kind.CANCELLED, api + " call cancelled");
    }

    @Override
    public void cancel() {
      if (!cancelRequested.compareAndSet(false, true)) {
        return;
      }
      Attempt a = current;
      if (a != null) {
        a.abort(); // close the connection now, even if a listener callback is running
      }
      runner.execute(() -> {
        if (retryWait != null) {
          retryWait.cancel(false);
        }
        fail(cancelled(), current);
      });
    }

    @Override
    public CompletableFuture<LlmCompletion> result() {
      return result;
    }

    /** Listener events, dropped once cancel() was called, never thrown into the parser. */
    private final class GuardedEvents implements StreamEvents {
      @Override
      public void thinking(String text) {
        if (!cancelRequested.get()) {
          try {
            listener.onThinking(text);
          } catch (RuntimeException e) {
            listenerThrew("onThinking", e);
          }
        }
      }

      @Override
      public void text(String text) {
        if (!cancelRequested.get()) {
          try {
            listener.onText(text);
          } catch (RuntimeException e) {
            listenerThrew("onText", e);
          }
        }
      }

      @Override
      public void toolCall(LlmToolCall call) {
        if (!cancelRequested.get()) {
          try {
            listener.onToolCall(call);
          } catch (RuntimeException e) {
            listenerThrew("onToolCall", e);
          }
        }
      }
    }
  }

  /**
   * One HTTP exchange of a call. Its subscriber methods run on the HTTP client's threads and
   * only hand work to the call's runner, where all state changes happen.
   */
  private final class Attempt implements HttpResponse.BodyHandler<Void> {
    final Call call;
    final long startNanos = System.nanoTime();
    volatile CompletableFuture<HttpResponse<Void>> sent;
    volatile Flow.Subscription subscription;
    volatile boolean aborted;
    int status;
    HttpHeaders headers;
    boolean errorMode;
    ByteArrayOutputStream errorBody;
    StreamParser parser;
    boolean bodyStarted;
    boolean ended;
    long lastActivity;
    volatile ScheduledFuture<?> timer;

    Attempt(Call call) {
      this.call = call;
    }

    void send() {
      try {
        CompletableFuture<HttpResponse<Void>> cf = http.sendAsync(call.request, this);
        sent = cf;
        if (aborted) { // cancel() ran while we were sending
          cf.cancel(true);
        }
        cf.whenComplete((r, e) -> {
          if (e != null) { // may run on a JDK-internal thread: hand on to the executor
            call.handOff(() -> sendFailed(e));
          }
        });
      } catch (RuntimeException e) {
        call.runner.execute(() -> sendFailed(e));
      }
    }

    boolean stale() {
      return call.current != this || ended;
    }

    /** Closes the exchange: the response body if there is one, else the pending request. */
    void abort() {
      aborted = true;
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
      CompletableFuture<HttpResponse<Void>> cf = sent;
      if (cf != null && !cf.isDone()) {
        cf.cancel(true);
      }
      ScheduledFuture<?> t = timer;
      if (t != null) {
        t.cancel(false);
      }
    }

    @Override
    public HttpResponse.BodySubscriber<Void> apply(HttpResponse.ResponseInfo info) {
      return new Subscriber(info);
    }

    // ---- runner tasks ----

    void subscribed(HttpResponse.ResponseInfo info) {
      if (aborted || stale() || call.terminated) {
        subscription.cancel();
        return;
      }
      status = info.statusCode();
      headers = info.headers();
      lastActivity = System.nanoTime();
      if (status >= 200 && status <= 299) {
        try {
          parser = call.parsers.create(call.events, info);
        } catch (RuntimeException e) {
          ended = true;
          call.fail(unexpected(e), this);
          return;
        }
        arm(startNanos + firstByteTimeout.toNanos());
      } else {
        errorMode = true;
        errorBody = new ByteArrayOutputStream();
        arm(lastActivity + idleTimeout.toNanos());
      }
      subscription.request(1);
    }

    void data(List<ByteBuffer> buffers) {
      if (aborted || stale()) {
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
                arm(lastActivity + idleTimeout.toNanos());
              }
              parser.feed(b);
            }
          }
          if (parser.isDone()) {
            call.complete(parser.finish());
          }
        } catch (LlmException e) {
          ended = true;
          call.fail(e, this);
          return;
        } catch (RuntimeException e) {
          ended = true;
          call.fail(unexpected(e), this);
          return;
        }
      }
      lastActivity = System.nanoTime();
      subscription.request(1);
    }

    void bodyEnded() {
      if (ended || call.current != this) {
        return;
      }
      cancelTimer();
      if (call.terminated) {
        ended = true;
        return;
      }
      if (errorMode) {
        errorBodyEnded();
        return;
      }
      ended = true;
      try {
        call.complete(parser.finish());
      } catch (LlmException e) {
        call.fail(e, this);
      } catch (RuntimeException e) {
        call.fail(unexpected(e), this);
      }
    }

    void errorBodyEnded() {
      ended = true;
      cancelTimer();
      LlmException e = Errors.http(api, status, ProviderError.fromBody(errorBody.toByteArray()),
          RetryAfter.of(headers, clock));
      call.retryOrFail(e, e.isRetryable(), this);
    }

    void bodyFailed(Throwable t) {
      if (ended || call.current != this) {
        return;
      }
      ended = true;
      cancelTimer();
      if (call.terminated) {
        return;
      }
      if (errorMode) {
        LlmException e = Errors.http(api, status,
            ProviderError.fromBody(errorBody.toByteArray()), RetryAfter.of(headers, clock));
        call.retryOrFail(e, e.isRetryable(), this);
      } else if (!bodyStarted) {
        call.retryOrFail(new LlmException(LlmException.Kind.CONNECT,
            api + " connection failed before the stream started: " + t, 0, null, true, null, t),
            true, this);
      } else {
        call.fail(new LlmException(LlmException.Kind.PROTOCOL,
            api + " stream broke off: " + t, 0, null, true, null, t), this);
      }
    }

    void sendFailed(Throwable t) {
      if (ended || call.current != this || call.terminated) {
        return;
      }
      ended = true;
      Throwable cause = t;
      while ((cause instanceof CompletionException || cause instanceof ExecutionException)
          && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof CancellationException) {
        return; // cancel() ends the call itself
      }
      String target = call.request.method() + " " + call.request.uri();
      if (cause instanceof HttpConnectTimeoutException) {
        call.retryOrFail(new LlmException(LlmException.Kind.TIMEOUT,
            api + " connect timed out: " + target, 0, null, true, null, cause), true, this);
      } else if (cause instanceof HttpTimeoutException) {
        call.fail(new LlmException(LlmException.Kind.TIMEOUT, api
            + " sent no response within the first-byte timeout of " + firstByteTimeout.toMillis()
            + " ms: " + target, 0, null, true, null, cause), this);
      } else if (cause instanceof ConnectException) {
        call.retryOrFail(new LlmException(LlmException.Kind.CONNECT,
            api + " cannot connect: " + target + ": " + cause, 0, null, true, null, cause),
            true, this);
      } else if (cause instanceof IOException) {
        call.retryOrFail(new LlmException(LlmException.Kind.CONNECT,
            api + " I/O error before the response: " + target + ": " + cause, 0, null, true,
            null, cause), true, this);
      } else {
        call.fail(new LlmException(LlmException.Kind.CLIENT,
            api + " request could not be sent: " + cause, 0, null, false, null, cause), this);
      }
    }

    void timerFired() {
      timer = null;
      if (ended || aborted || call.current != this) {
        return;
      }
      long now = System.nanoTime();
      if (call.terminated) {
        if (now - lastActivity >= idleTimeout.toNanos()) {
          ended = true;
          subscription.cancel(); // the rest after the end marker never came
        } else {
          arm(lastActivity + idleTimeout.toNanos());
        }
        return;
      }
      if (!errorMode && !bodyStarted) {
        long deadline = startNanos + firstByteTimeout.toNanos();
        if (now - deadline >= 0) {
          ended = true;
          call.fail(new LlmException(LlmException.Kind.TIMEOUT, api
              + " sent no data within the first-byte timeout of " + firstByteTimeout.toMillis()
              + " ms", 0, null, true, null, null), this);
        } else {
          arm(deadline);
        }
        return;
      }
      long deadline = lastActivity + idleTimeout.toNanos();
      if (now - deadline >= 0) {
        ended = true;
        call.fail(new LlmException(LlmException.Kind.TIMEOUT, api + " stream stalled: no data for "
            + idleTimeout.toMillis() + " ms", 0, null, true, null, null), this);
      } else {
        arm(deadline);
      }
    }

    void arm(long deadlineNanos) {
      long delay = Math.max(0, deadlineNanos - System.nanoTime());
      try {
        timer = scheduler.schedule(() -> call.handOff(this::timerFired), delay,
            TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        log.warn("LLM timer rejected a task; this call has no timeout");
      }
    }

    void cancelTimer() {
      ScheduledFuture<?> t = timer;
      if (t != null) {
        t.cancel(false);
        timer = null;
      }
    }

    LlmException unexpected(RuntimeException e) {
      return new LlmException(LlmException.Kind.PROTOCOL,
          api + " stream could not be read: " + e, 0, null, false, null, e);
    }

    /** The body subscriber: hands every signal to the call's runner. */
    private final class Subscriber implements HttpResponse.BodySubscriber<Void> {
      private final HttpResponse.ResponseInfo info;

      Subscriber(HttpResponse.ResponseInfo info) {
        this.info = info;
      }

      @Override
      public CompletionStage<Void> getBody() {
        return CompletableFuture.completedFuture(null); // the response "completes" at headers
      }

      @Override
      public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (aborted) {
          s.cancel();
          return;
        }
        call.runner.execute(() -> subscribed(info));
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
        call.runner.execute(Attempt.this::bodyEnded);
      }
    }
  }
}
