package dev.gadget.core.server.internal;

import dev.gadget.core.model.TurnStatus;
import java.time.Duration;
import java.time.Instant;

/**
 * What the server checks of its live turns on a timer: each open block stored when it changed
 * ({@link #checkpoint}), and a turn whose drone fell silent ended ({@link #checkSilence}).
 */
public final class TurnSweeps {
  private final ServerSettings settings;
  private final LiveTurns turns;

  public TurnSweeps(ServerSettings settings, LiveTurns turns) {
    this.settings = settings;
    this.turns = turns;
  }

  /**
   * Stores each live turn's open block if it changed since its last checkpoint: run every
   * {@link LiveTurns#CHECKPOINT_INTERVAL}, so a server crash loses at most that much streamed
   * text, with one write per turn and interval at most (never one per token).
   */
  public void checkpoint() {
    for (LiveTurn t : turns.all()) {
      synchronized (t.lock) {
        if (!t.ended) {
          t.checkpoint();
        }
      }
    }
  }

  /**
   * Ends, as interrupted, every turn whose drone has said nothing for the silence timeout (in a
   * cluster, a turn whose drone another node holds now is let go instead, {@link LiveTurns#end}).
   */
  public void checkSilence() {
    Instant now = settings.clock().instant();
    Duration silenceTimeout = settings.silenceTimeout();
    for (LiveTurn t : turns.all()) {
      boolean silent;
      synchronized (t.lock) {
        silent = !t.ended && t.graceTimer == null
            && now.toEpochMilli() - t.lastEventAtMillis > silenceTimeout.toMillis();
      }
      if (silent) {
        turns.end(t, TurnStatus.INTERRUPTED, null,
            "the drone fell silent for more than " + silenceTimeout.toSeconds() + " s");
      }
    }
  }
}
