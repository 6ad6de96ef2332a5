package dev.gadget.core.llm.internal;

import dev.gadget.core.llm.LlmException;
import dev.gadget.core.llm.RetryPolicy;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether and when a call that failed before its stream started is sent again, by the
 * {@link RetryPolicy}: after the server's {@code Retry-After} when it sent one (no retry when it
 * asks for longer than the policy allows), else after the policy's backoff with jitter. Logs an
 * engine's first retry at WARN, the rest at DEBUG. Thread-safe; one per engine.
 */
final class RetryPlanner {
  private static final Logger log = LoggerFactory.getLogger(HttpStreamEngine.class);

  private final String api;
  private final RetryPolicy policy;
  private final AtomicBoolean warned = new AtomicBoolean();

  RetryPlanner(String api, RetryPolicy policy) {
    this.api = api;
    this.policy = policy;
  }

  /**
   * How long to wait before sending again after {@code e}.
   *
   * @param e the failure, retryable
   * @param retriesSoFar how many retries the call made already
   * @return the wait, or {@code null} when the call must end with {@code e}
   */
  Duration delay(LlmException e, int retriesSoFar) {
    if (retriesSoFar >= policy.maxRetries()) {
      return null;
    }
    Duration delay = e.retryAfter().orElse(null);
    if (delay != null) {
      return delay.compareTo(policy.maxRetryAfter()) > 0 ? null : delay;
    }
    return policy.backoff(retriesSoFar, ThreadLocalRandom.current().nextDouble());
  }

  /** Logs that retry number {@code retryNo} follows in {@code delay} after {@code what}. */
  void logRetry(String what, int retryNo, Duration delay) {
    if (warned.compareAndSet(false, true)) {
      log.warn("{} request failed ({}); retry {} of {} in {} ms (further retries are logged at "
          + "DEBUG)", api, what, retryNo, policy.maxRetries(), delay.toMillis());
    } else {
      log.debug("{} request failed ({}); retry {} of {} in {} ms", api, what, retryNo,
          policy.maxRetries(), delay.toMillis());
    }
  }
}
