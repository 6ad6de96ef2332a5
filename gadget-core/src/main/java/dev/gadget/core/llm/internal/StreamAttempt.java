package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.FinishReason;
import dev.gadget.core.llm.LlmCompletion;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * One HTTP exchange of a call: sends the request, hands the response to a {@link BodyReader},
 * reports a failure to send to the call, and closes the exchange on abort. Its HTTP-client
 * callbacks only hand work to the call's runner, where all state changes happen.
 */
final class StreamAttempt implements HttpResponse.BodyHandler<Void> {
  final StreamCall call;
  final long startNanos = System.nanoTime();
  volatile boolean aborted;
  /** Whether this exchange has reported its outcome (runner only). */
  boolean ended;
  private volatile CompletableFuture<HttpResponse<Void>> sent;
  private volatile BodyReader body;

  StreamAttempt(StreamCall call) {
    this.call = call;
  }

  void send() {
    try {
      CompletableFuture<HttpResponse<Void>> cf = call.engine.http.sendAsync(call.request, this);
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

  /** Whether this exchange no longer speaks for the call: ended, or another one took over. */
  boolean stale() {
    return call.current != this || ended;
  }

  /** Closes the exchange: the response body if there is one, else the pending request. */
  void abort() {
    aborted = true;
    BodyReader b = body;
    if (b != null) {
      b.abort();
    }
    CompletableFuture<HttpResponse<Void>> cf = sent;
    if (cf != null && !cf.isDone()) {
      cf.cancel(true);
    }
  }

  /** What the parser assembled so far; {@link #nothing()} when no 2xx body was being read. */
  LlmCompletion partial() {
    BodyReader b = body;
    StreamParser parser = b == null ? null : b.parser();
    return parser != null ? parser.partial() : nothing();
  }

  /** The partial result of a call that received no reply. */
  static LlmCompletion nothing() {
    return new LlmCompletion("", "", List.of(), null, FinishReason.OTHER);
  }

  @Override
  public HttpResponse.BodySubscriber<Void> apply(HttpResponse.ResponseInfo info) {
    BodyReader b = new BodyReader(this, info);
    body = b;
    return b;
  }

  /** Runner task: the request failed before a response arrived. */
  private void sendFailed(Throwable t) {
    if (ended || call.current != this || call.terminated) {
      return;
    }
    ended = true;
    Throwable cause = TransportErrors.unwrap(t);
    if (cause instanceof CancellationException) {
      return; // cancel() ends the call itself
    }
    TransportErrors.SendFailure f = call.engine.errors.sendFailed(call.request, cause);
    call.retryOrFail(f.error(), f.retry(), this);
  }
}
