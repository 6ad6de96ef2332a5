package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Who may change files in a workspace right now (seeds 000/001). Mutually exclusive: while the
 * agent runs a turn the mode is {@link #AGENT}; while a person edits it is {@link #USER}.
 */
public enum WorkspaceMode {
  /** Nobody holds the workspace. */
  @JsonProperty("idle") IDLE,
  /** The user is editing; the agent must not write. */
  @JsonProperty("user") USER,
  /** The agent is running a turn; the user should not write. */
  @JsonProperty("agent") AGENT
}
