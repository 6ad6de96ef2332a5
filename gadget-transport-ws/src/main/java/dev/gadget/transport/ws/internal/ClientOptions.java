package dev.gadget.transport.ws.internal;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/** The client's settings, validated by the builder. {@code uri} is the full WebSocket URI. */
public record ClientOptions(
    URI uri,
    boolean reconnection,
    Duration reconnectionDelay,
    Duration reconnectionDelayMax,
    double randomizationFactor,
    int reconnectionAttempts,
    Duration connectTimeout,
    int maxBufferedEmits,
    int maxPayload,
    int maxAttachments) {
  public ClientOptions {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(reconnectionDelay, "reconnectionDelay");
    Objects.requireNonNull(reconnectionDelayMax, "reconnectionDelayMax");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
  }

  /**
   * The delay before reconnect attempt {@code attempt} (0-based): exponential from
   * {@code reconnectionDelay}, capped at {@code reconnectionDelayMax}, spread by
   * {@code ±randomizationFactor} (with {@code random} in [0, 1)).
   */
  public long backoffMillis(int attempt, double random) {
    double base = reconnectionDelay.toMillis() * Math.pow(2, Math.min(attempt, 30));
    double jitter = randomizationFactor * base;
    double delay = base - jitter + 2 * jitter * random;
    return (long) Math.max(0, Math.min(delay, reconnectionDelayMax.toMillis()));
  }
}
