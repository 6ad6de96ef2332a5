package dev.gadget.core.llm;

import java.time.Duration;
import java.util.Objects;

/**
 * When an HTTP {@link LlmClient} retries a request by itself. It retries only before the first
 * byte of the response stream arrived (so nothing was delivered to the listener yet), and only
 * for failures that may pass: connect failures and connect timeouts, I/O errors before the
 * response, and HTTP 408, 409, 429 and 5xx (or as the server's {@code x-should-retry} says).
 * It never retries other 4xx, a first-byte or idle timeout,
 * or anything after a chunk arrived.
 *
 * <p>Retry {@code n} (from 0) waits {@code min(maxBackoff, initialBackoff * 2^n)}, of which a
 * random half is jitter; when the server sent {@code Retry-After} (or {@code retry-after-ms}) it
 * waits exactly that long instead, unless that is longer than {@link #maxRetryAfter()}, in which
 * case it does not retry and the error carries the server's {@code Retry-After}. Immutable.
 *
 * @param maxRetries how many times to retry after the first attempt (0: never)
 * @param initialBackoff the base wait before the first retry
 * @param maxBackoff the longest wait between attempts (without {@code Retry-After})
 * @param maxRetryAfter the longest {@code Retry-After} honoured by waiting
 */
public record RetryPolicy(int maxRetries, Duration initialBackoff, Duration maxBackoff,
    Duration maxRetryAfter) {
  /** Two retries, from 500 ms up to 8 s, honouring a {@code Retry-After} of up to 60 s. */
  public static final RetryPolicy DEFAULT = new RetryPolicy(2, Duration.ofMillis(500),
      Duration.ofSeconds(8), Duration.ofSeconds(60));

  /** Never retry. */
  public static final RetryPolicy NONE = new RetryPolicy(0, Duration.ZERO, Duration.ZERO,
      Duration.ZERO);

  /** Validates. */
  public RetryPolicy {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries < 0");
    }
    Objects.requireNonNull(initialBackoff, "initialBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
    if (initialBackoff.isNegative() || maxBackoff.isNegative() || maxRetryAfter.isNegative()) {
      throw new IllegalArgumentException("negative duration");
    }
  }

  /**
   * The wait before retry {@code retry} (from 0) when the server said nothing.
   *
   * @param retry which retry, from 0
   * @param random a number in [0, 1) for the jitter
   * @return the wait
   */
  public Duration backoff(int retry, double random) {
    long initial = initialBackoff.toNanos();
    long max = maxBackoff.toNanos();
    long base = initial;
    for (int i = 0; i < retry && base < max; i++) {
      base = base > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : base * 2;
    }
    base = Math.min(base, max);
    long half = base / 2;
    return Duration.ofNanos(base - half + (long) (half * random));
  }
}
