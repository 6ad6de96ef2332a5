package dev.gadget.transport.ws.internal;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The client's settings, validated by the builder. {@code uri} is the full WebSocket URI;
 * {@code alternates} are other servers' (the nodes of one cluster), tried in turn after a drop.
 */
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
    int maxAttachments,
    List<URI> alternates) {
  public ClientOptions {
    Objects.requireNonNull(uri, "uri");
    alternates = List.copyOf(alternates);
    Objects.requireNonNull(reconnectionDelay, "reconnectionDelay");
    Objects.requireNonNull(reconnectionDelayMax, "reconnectionDelayMax");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
  }

  /** As above, with one server. */
  public ClientOptions(URI uri, boolean reconnection, Duration reconnectionDelay,
      Duration reconnectionDelayMax, double randomizationFactor, int reconnectionAttempts,
      Duration connectTimeout, int maxBufferedEmits, int maxPayload, int maxAttachments) {
    this(uri, reconnection, reconnectionDelay, reconnectionDelayMax, randomizationFactor,
        reconnectionAttempts, connectTimeout, maxBufferedEmits, maxPayload, maxAttachments,
        List.of());
  }

  /** The server of connection attempt {@code n}: {@code uri}, then each alternate, in turn. */
  public URI uri(int n) {
    int i = Math.floorMod(n, alternates.size() + 1);
    return i == 0 ? uri : alternates.get(i - 1);
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
