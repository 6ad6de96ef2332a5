package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * A drone known to the server: one workspace directory on one host (seeds 000/001).
 *
 * @param id the registration's id
 * @param userId the owner: a drone only ever runs its owner's work
 * @param workspaceId the id from the workspace's {@code .gadget/workspace.json}
 * @param hostname the host the drone runs on
 * @param workspaceDir the workspace's absolute path on that host
 * @param status what it is doing
 * @param registeredAt when it first registered
 * @param lastSeenAt when the server last heard from it
 */
public record DroneRegistration(
    @JsonProperty("_id") String id,
    String userId,
    String workspaceId,
    String hostname,
    String workspaceDir,
    DroneStatus status,
    Instant registeredAt,
    Instant lastSeenAt) {
  public DroneRegistration {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(workspaceId, "workspaceId");
    Objects.requireNonNull(hostname, "hostname");
    Objects.requireNonNull(workspaceDir, "workspaceDir");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(registeredAt, "registeredAt");
    lastSeenAt = lastSeenAt == null ? registeredAt : lastSeenAt;
  }

  /** This registration with another status, seen at {@code now}. */
  public DroneRegistration withStatus(DroneStatus status, Instant now) {
    return new DroneRegistration(
        id, userId, workspaceId, hostname, workspaceDir, status, registeredAt, now);
  }
}
