package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * A conversation about one project. Its turns are stored apart and listed in order.
 *
 * @param id the session's id
 * @param userId the owner
 * @param projectId the project it is about
 * @param name the display name
 * @param workspaceId the workspace that last ran a turn of it, or {@code null}: the server routes
 *     the next work order there first (seed 001, section 7.6)
 * @param createdAt when it was created
 */
public record ChatSession(
    @JsonProperty("_id") String id,
    String userId,
    String projectId,
    String name,
    String workspaceId,
    Instant createdAt) {
  public ChatSession {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(userId, "userId");
    Objects.requireNonNull(projectId, "projectId");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** This session with another workspace id. */
  public ChatSession withWorkspaceId(String workspaceId) {
    return new ChatSession(id, userId, projectId, name, workspaceId, createdAt);
  }
}
