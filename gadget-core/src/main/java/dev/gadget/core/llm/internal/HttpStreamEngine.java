package dev.gadget.core.llm.internal;

import dev.gadget.core.Ids;
import dev.gadget.core.llm.LlmCall;
import dev.gadget.core.llm.LlmListener;
import dev.gadget.core.llm.RetryPolicy;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs streaming chat calls over {@link HttpClient}: sends the request, retries before the first
 * byte, reads the body through a {@link Flow.Subscriber} (no thread per call, per token, or per
 * idle stream), enforces the first-byte and idle timeouts on a shared scheduler, and delivers
 * events to the listener one at a time with exactly one terminal event.
 *
 * <p>The request's own timeout ({@link HttpRequest#timeout()}) covers the wait for the response
 * headers; after them the engine's timer takes over, since the JDK stops counting there.
 * Thread-safe; one engine serves any number of concurrent calls.
 *
 * <p>This class holds the settings and starts calls; the work is done by {@link StreamCall} (the
 * handle: attempts, retry waits, the outcome, cancellation), {@link StreamAttempt} (one HTTP
 * exchange), {@link BodyReader} (the response body and its timeouts), {@link RetryPlanner}
 * (whether and when to send again), {@link TransportErrors} (failures as {@code LlmException})
 * and {@link ListenerDelivery} (events to the listener).
 */
public final class HttpStreamEngine {
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

  final HttpClient http;
  final Executor executor;
  final ScheduledExecutorService scheduler;
  final Duration firstByteTimeout;
  final Duration idleTimeout;
  final RetryPlanner retries;
  final TransportErrors errors;
  /** Whether a listener of this engine's calls has thrown yet (logged at WARN only once). */
  final AtomicBoolean warnedListener = new AtomicBoolean();

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
    Objects.requireNonNull(api, "api");
    this.http = Objects.requireNonNull(http, "http");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.firstByteTimeout = Objects.requireNonNull(firstByteTimeout, "firstByteTimeout");
    this.idleTimeout = Objects.requireNonNull(idleTimeout, "idleTimeout");
    Objects.requireNonNull(retry, "retry");
    Objects.requireNonNull(clock, "clock");
    this.retries = new RetryPlanner(api, retry);
    this.errors = new TransportErrors(api, firstByteTimeout, idleTimeout, clock);
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
    StreamCall call = new StreamCall(this, request, parsers, listener);
    call.runner.execute(call::sendAttempt);
    return call;
  }

  /** The HTTP client the calls go through. */
  public HttpClient httpClient() {
    return http;
  }

  /** A new tool-call id for servers that send none. */
  public static String newToolCallId() {
    return "call_" + Ids.next();
  }
}
