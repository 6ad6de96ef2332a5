package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * A token as a store keeps it: its SHA-256 hash, never the token itself.
 *
 * @param id the token's id
 * @param userId the user it acts for
 * @param kind what it may connect as
 * @param label a name for people, such as {@code "laptop drone"}
 * @param hash lower-case hex SHA-256 of the token's UTF-8 bytes
 * @param createdAt when it was issued
 */
public record StoredToken(
    @JsonProperty("_id") String id,
    String userId,
    TokenKind kind,
    String label,
    String hash,
    Instant createdAt) {
  public StoredToken {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(hash, "hash");
    Objects.requireNonNull(createdAt, "createdAt");
    label = label == null ? "" : label;
    if (!hash.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("hash must be 64 lower-case hex characters");
    }
  }
}
