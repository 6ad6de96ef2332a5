package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Where a chat turn stands. Every status but {@link #PROCESSING} is terminal. */
public enum TurnStatus {
  /** Created and sent to a drone, or running. */
  @JsonProperty("processing") PROCESSING,
  /** The loop ended because the model asked for no more tools. */
  @JsonProperty("finished") FINISHED,
  /** The loop or the model failed; {@code ChatTurn.error} says why. */
  @JsonProperty("error") ERROR,
  /** The drone died or fell silent and the turn was given up. */
  @JsonProperty("interrupted") INTERRUPTED,
  /** The user cancelled the turn. */
  @JsonProperty("cancelled") CANCELLED;

  /** Whether the turn can no longer change. */
  public boolean isTerminal() {
    return this != PROCESSING;
  }
}
