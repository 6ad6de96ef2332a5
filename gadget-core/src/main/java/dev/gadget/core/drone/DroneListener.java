package dev.gadget.core.drone;

import dev.gadget.core.model.DroneStatus;
import dev.gadget.core.model.TurnStats;

/**
 * What a {@link GadgetDrone} is doing, for a console or a UI. Every method has a no-op default;
 * an exception thrown here is logged and ignored. Called from the drone's threads.
 */
public interface DroneListener {
  /** The drone connected (again) to the server. */
  default void onConnected() {}

  /** The drone lost its connection; it reconnects by itself unless it was refused. */
  default void onDisconnected(String reason) {}

  /** The server refused the drone (a bad or wrong-kind token); it will not retry. */
  default void onRefused(String message) {}

  /** The drone's status changed; {@code turnId} is the turn it runs, or {@code null}. */
  default void onStatus(DroneStatus status, String turnId) {}

  /** A turn the drone ran ended with {@code status} (as stored: finished, error, cancelled). */
  default void onTurnEnded(String turnId, String status, String message) {}

  /**
   * A turn the drone ran ended, with its {@code stats} (how many tools its last model call had
   * loaded and deferred among them, {@link TurnStats#toolsLoaded()}); by default
   * {@link #onTurnEnded(String, String, String)}. The drone calls this one.
   */
  default void onTurnEnded(String turnId, String status, String message, TurnStats stats) {
    onTurnEnded(turnId, status, message);
  }
}
