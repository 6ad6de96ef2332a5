package dev.gadget.micrometer;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.server.ServerListener;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** The server's listener: live turns and connections as gauges, each turn's duration. */
final class ServerMetrics implements ServerListener {
  private final MeterRegistry registry;
  private final AtomicInteger liveTurns = new AtomicInteger();
  private final Map<ConnectionKind, AtomicInteger> connections =
      new EnumMap<>(ConnectionKind.class);

  ServerMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder(GadgetMetrics.SERVER_TURNS_ACTIVE, liveTurns, AtomicInteger::get)
        .description("Turns the server runs now")
        .strongReference(true)
        .register(registry);
    for (ConnectionKind kind : ConnectionKind.values()) {
      AtomicInteger open = new AtomicInteger();
      connections.put(kind, open);
      Gauge.builder(GadgetMetrics.SERVER_CONNECTIONS, open, AtomicInteger::get)
          .description("Pages and drones connected now")
          .tag(GadgetMetrics.CONNECTION_KIND, kind.name().toLowerCase(Locale.ROOT))
          .strongReference(true)
          .register(registry);
    }
  }

  @Override
  public void onConnectionOpened(ConnectionKind kind) {
    connections.get(kind).incrementAndGet();
  }

  @Override
  public void onConnectionClosed(ConnectionKind kind) {
    connections.get(kind).decrementAndGet();
  }

  @Override
  public void onTurnStarted(ChatTurn turn) {
    liveTurns.incrementAndGet();
  }

  @Override
  public void onTurnEnded(ChatTurn turn, TurnStatus status, TurnStats stats, Duration duration) {
    Timer.builder(GadgetMetrics.SERVER_TURN_DURATION)
        .description("How long a turn ran, from the prompt to its stored end, by how it ended")
        .tag(GadgetMetrics.TURN_STATUS, status.name().toLowerCase(Locale.ROOT))
        .register(registry)
        .record(duration.isNegative() ? Duration.ZERO : duration);
    liveTurns.decrementAndGet();
  }
}
