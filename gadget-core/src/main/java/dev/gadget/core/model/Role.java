package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Who said a {@link ChatMessage}. Serialised in lower case. */
public enum Role {
  /** Instructions for the model: the system prompt. Skipped when a session's history is replayed. */
  @JsonProperty("system") SYSTEM,
  /** The person at the keyboard. */
  @JsonProperty("user") USER,
  /** The model. */
  @JsonProperty("assistant") ASSISTANT,
  /** The result of a tool the model called. */
  @JsonProperty("tool") TOOL
}
