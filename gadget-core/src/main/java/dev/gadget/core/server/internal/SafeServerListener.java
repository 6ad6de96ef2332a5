package dev.gadget.core.server.internal;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import dev.gadget.core.server.ServerListener;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A {@link ServerListener} that never throws into the server: what the user's throws is logged. */
public final class SafeServerListener implements ServerListener {
  private static final Logger log = LoggerFactory.getLogger(SafeServerListener.class);

  private final ServerListener delegate;

  /** Wraps {@code delegate}. */
  public SafeServerListener(ServerListener delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public void onConnectionOpened(ConnectionKind kind) {
    safely(() -> delegate.onConnectionOpened(kind));
  }

  @Override
  public void onConnectionClosed(ConnectionKind kind) {
    safely(() -> delegate.onConnectionClosed(kind));
  }

  @Override
  public void onTurnStarted(ChatTurn turn) {
    safely(() -> delegate.onTurnStarted(turn));
  }

  @Override
  public void onTurnEnded(ChatTurn turn, TurnStatus status, TurnStats stats, Duration duration) {
    safely(() -> delegate.onTurnEnded(turn, status, stats, duration));
  }

  private static void safely(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("ServerListener threw; ignored", e);
    }
  }
}
