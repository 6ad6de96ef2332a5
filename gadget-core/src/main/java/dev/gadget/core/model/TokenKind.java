package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a token lets its holder connect as. A token of one kind is refused as the other. */
public enum TokenKind {
  /** A person's page or API client. */
  @JsonProperty("user") USER,
  /** A drone acting for its owner. */
  @JsonProperty("drone") DRONE
}
