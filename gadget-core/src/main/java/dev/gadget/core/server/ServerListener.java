package dev.gadget.core.server;

import dev.gadget.core.model.ChatTurn;
import dev.gadget.core.model.TurnStats;
import dev.gadget.core.model.TurnStatus;
import java.time.Duration;

/**
 * Observes a {@link GadgetServer}: connections and turns, for metrics or a console. Set one with
 * {@link GadgetServer.Builder#listener}. Every method has a no-op default.
 *
 * <p><b>Threading.</b> Called from the server's threads (the transport's, the timer's), possibly
 * at the same time for different connections and turns; keep each call short, it runs on the
 * server's path. A listener that throws is logged and ignored; the server goes on.
 *
 * <p><b>Pairs.</b> Each {@link #onConnectionOpened} is followed by exactly one
 * {@link #onConnectionClosed} with the same {@code kind}, and each {@link #onTurnStarted} by
 * exactly one {@link #onTurnEnded} for the same turn, unless the server is {@link
 * GadgetServer#close() closed} first: what is open or running then gets no end here (running turns
 * stay as they are in the store). Turns that a previous run left running, and that
 * {@link GadgetServer#start()} ends as interrupted, are not reported.
 */
public interface ServerListener {
  /** What connected: a page (on {@code /}) or a drone (on {@code /drone}). */
  enum ConnectionKind {
    /** A page, signed in with a page token. */
    PAGE,
    /** A drone, signed in with a drone token. */
    DRONE
  }

  /** A page or a drone signed in. */
  default void onConnectionOpened(ConnectionKind kind) {}

  /** A connection that {@link #onConnectionOpened} reported ended. */
  default void onConnectionClosed(ConnectionKind kind) {}

  /** A prompt became a turn, stored and sent to a drone. */
  default void onTurnStarted(ChatTurn turn) {}

  /**
   * A turn ended, as stored.
   *
   * @param turn the turn as it started
   * @param status how it ended (finished, error, cancelled, interrupted)
   * @param stats what it cost, as the drone reported ({@link TurnStats#EMPTY} when it did not)
   * @param duration from {@link #onTurnStarted} to now, by the server's clock
   */
  default void onTurnEnded(ChatTurn turn, TurnStatus status, TurnStats stats, Duration duration) {}
}
