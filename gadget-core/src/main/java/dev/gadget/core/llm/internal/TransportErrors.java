package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Turns what goes wrong on the wire into the {@link LlmException} a caller sees, named after the
 * server: a request that could not be sent, an HTTP error status with its body and
 * {@code Retry-After}, a body that breaks off or goes silent, a parser that fails, a cancel.
 * Also says which send failures are worth sending again. Thread-safe; one per engine.
 */
final class TransportErrors {
  /** A failure to get a response: the error, and whether the request should be sent again. */
  record SendFailure(LlmException error, boolean retry) {}

  private final String api;
  private final Duration firstByteTimeout;
  private final Duration idleTimeout;
  private final Clock clock;

  TransportErrors(String api, Duration firstByteTimeout, Duration idleTimeout, Clock clock) {
    this.api = api;
    this.firstByteTimeout = firstByteTimeout;
    this.idleTimeout = idleTimeout;
    this.clock = clock;
  }

  /** The cause of a failed send, without the {@code CompletableFuture} wrappers around it. */
  static Throwable unwrap(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /**
   * Why no response came for {@code request}: connecting failed or timed out, or an I/O error
   * (all sent again), the response headers took longer than the first-byte timeout, or the
   * request could not be sent at all (neither sent again).
   *
   * @param cause the unwrapped cause, not a cancellation
   */
  SendFailure sendFailed(HttpRequest request, Throwable cause) {
    String target = request.method() + " " + request.uri();
    if (cause instanceof HttpConnectTimeoutException) {
      return new SendFailure(new LlmException(LlmException.Kind.TIMEOUT,
          api + " connect timed out: " + target, 0, null, true, null, cause), true);
    } else if (cause instanceof HttpTimeoutException) {
      return new SendFailure(new LlmException(LlmException.Kind.TIMEOUT, api
          + " sent no response within the first-byte timeout of " + firstByteTimeout.toMillis()
          + " ms: " + target, 0, null, true, null, cause), false);
    } else if (cause instanceof ConnectException) {
      return new SendFailure(new LlmException(LlmException.Kind.CONNECT,
          api + " cannot connect: " + target + ": " + cause, 0, null, true, null, cause), true);
    } else if (cause instanceof IOException) {
      return new SendFailure(new LlmException(LlmException.Kind.CONNECT,
          api + " I/O error before the response: " + target + ": " + cause, 0, null, true,
          null, cause), true);
    } else {
      return new SendFailure(new LlmException(LlmException.Kind.CLIENT,
          api + " request could not be sent: " + cause, 0, null, false, null, cause), false);
    }
  }

  /**
   * A non-2xx response, from its status, headers and (possibly cut short) body; retried when the
   * server's {@code x-should-retry} says {@code true}, never when it says {@code false}, else by
   * its status, as the official SDKs do.
   */
  LlmException httpStatus(int status, HttpHeaders headers, byte[] body) {
    String should = headers.firstValue("x-should-retry").orElse("").strip();
    boolean retryable = should.equalsIgnoreCase("true") || !should.equalsIgnoreCase("false")
        && Errors.retryableStatus(status);
    return Errors.http(api, status, ProviderError.fromBody(body), RetryAfter.of(headers, clock),
        retryable);
  }

  /** The connection failed after the headers of a 2xx response but before its first byte. */
  LlmException brokeBeforeStream(Throwable t) {
    return new LlmException(LlmException.Kind.CONNECT,
        api + " connection failed before the stream started: " + t, 0, null, true, null, t);
  }

  /** The connection failed after the stream had started. */
  LlmException brokeOff(Throwable t) {
    return new LlmException(LlmException.Kind.PROTOCOL,
        api + " stream broke off: " + t, 0, null, true, null, t);
  }

  /** A 2xx response whose body did not start within the first-byte timeout. */
  LlmException noFirstByte() {
    return new LlmException(LlmException.Kind.TIMEOUT, api
        + " sent no data within the first-byte timeout of " + firstByteTimeout.toMillis()
        + " ms", 0, null, true, null, null);
  }

  /** A body that went silent for the idle timeout. */
  LlmException stalled() {
    return new LlmException(LlmException.Kind.TIMEOUT, api + " stream stalled: no data for "
        + idleTimeout.toMillis() + " ms", 0, null, true, null, null);
  }

  /** The parser (or its factory) failed with something other than an {@link LlmException}. */
  LlmException unreadable(RuntimeException e) {
    return new LlmException(LlmException.Kind.PROTOCOL,
        api + " stream could not be read: " + e, 0, null, false, null, e);
  }

  /** The call was cancelled. */
  LlmException cancelled() {
    return new LlmException(LlmException.Kind.CANCELLED, api + " call cancelled");
  }
}
