package dev.gadget.core.server.internal;

/** What a page shows when a drone crashed during a turn and retries it (seed 001's words). */
final class TurnRecoveredText {
  private TurnRecoveredText() {}

  /** "Drone crashed during processing - retrying", with the wait when there is one. */
  static String of(long delayMillis) {
    String text = "Drone crashed during processing - retrying";
    if (delayMillis <= 0) {
      return text;
    }
    return text + " in " + (delayMillis % 1000 == 0 ? delayMillis / 1000 + " s"
        : delayMillis + " ms");
  }
}
