package dev.gadget.core.drone.internal;

import dev.gadget.core.drone.DroneListener;
import dev.gadget.core.model.DroneStatus;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A {@link DroneListener} that never throws into the drone: what the user's throws is logged. */
public final class SafeDroneListener implements DroneListener {
  private static final Logger log = LoggerFactory.getLogger(SafeDroneListener.class);

  private final DroneListener delegate;

  /** Wraps {@code delegate}. */
  public SafeDroneListener(DroneListener delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public void onConnected() {
    safely(delegate::onConnected);
  }

  @Override
  public void onDisconnected(String reason) {
    safely(() -> delegate.onDisconnected(reason));
  }

  @Override
  public void onRefused(String message) {
    safely(() -> delegate.onRefused(message));
  }

  @Override
  public void onStatus(DroneStatus status, String turnId) {
    safely(() -> delegate.onStatus(status, turnId));
  }

  @Override
  public void onTurnEnded(String turnId, String status, String message) {
    safely(() -> delegate.onTurnEnded(turnId, status, message));
  }

  @Override
  public void onTurnEnded(String turnId, String status, String message,
      dev.gadget.core.model.TurnStats stats) {
    safely(() -> delegate.onTurnEnded(turnId, status, message, stats));
  }

  private static void safely(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("DroneListener threw; ignored", e);
    }
  }
}
