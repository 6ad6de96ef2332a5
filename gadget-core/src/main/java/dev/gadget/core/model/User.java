package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * A person who uses Gadget. Tokens are not part of the user: a store keeps only their hashes.
 *
 * @param id the user's id
 * @param username a unique login name
 * @param displayName the name shown in the page
 * @param createdAt when the user was created
 */
public record User(
    @JsonProperty("_id") String id, String username, String displayName, Instant createdAt) {
  public User {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(createdAt, "createdAt");
    displayName = displayName == null ? username : displayName;
  }
}
