package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a drone is doing (seed 000, {@code DroneStatus}). */
public enum DroneStatus {
  /** Registered, preparing its workspace. */
  @JsonProperty("starting") STARTING,
  /** Ready for a work order. */
  @JsonProperty("available") AVAILABLE,
  /** Running a work order; refuses another. */
  @JsonProperty("busy") BUSY,
  /** Not connected. */
  @JsonProperty("offline") OFFLINE
}
