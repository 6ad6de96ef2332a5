package dev.gadget.core.model;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The contents of {@code .gadget/workspace.json} (seed 001, section 7.3): the workspace's
 * identity, which chat session and project it is locked to, the projects cloned into it, and its
 * drone registration. Entities carry their id as {@code _id}, as in the seed's example; a file
 * written before with {@code id} reads too. Never holds a secret.
 *
 * @param workspaceId the workspace's UUID, immutable once created
 * @param createdAt when the workspace was created
 * @param hostname the host the drone runs on
 * @param workspaceDir the workspace's absolute path
 * @param chatSession the session it is locked to, or {@code null}
 * @param lockedProject the project it is locked to, or {@code null}
 * @param projects every project cloned into it
 * @param registration the drone registration, or {@code null} before the first connection
 * @param mode the mode the user set: {@link WorkspaceMode#USER} while the user has taken the
 *     workspace over (a restarted drone stays in user mode and refuses work orders), otherwise
 *     {@link WorkspaceMode#IDLE}; agent mode, which a work order sets, is never kept
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record WorkspaceData(
    String workspaceId,
    Instant createdAt,
    String hostname,
    String workspaceDir,
    SessionLock chatSession,
    ProjectLock lockedProject,
    List<ProjectEntry> projects,
    Registration registration,
    WorkspaceMode mode) {
  public WorkspaceData {
    Objects.requireNonNull(workspaceId, "workspaceId");
    Objects.requireNonNull(createdAt, "createdAt");
    projects = projects == null ? List.of() : List.copyOf(projects);
    mode = mode == WorkspaceMode.USER ? WorkspaceMode.USER : WorkspaceMode.IDLE;
  }

  /** This workspace with the mode the user set ({@code USER}, or anything else for idle). */
  public WorkspaceData withMode(WorkspaceMode mode) {
    return new WorkspaceData(workspaceId, createdAt, hostname, workspaceDir, chatSession,
        lockedProject, projects, registration, mode);
  }

  /**
   * The chat session a workspace is locked to.
   *
   * @param id the session's id
   * @param name its name
   * @param lockedAt when it was locked
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record SessionLock(@JsonProperty("_id") @JsonAlias("id") String id, String name,
      Instant lockedAt) {}

  /**
   * The project a workspace is locked to.
   *
   * @param id the project's id
   * @param slug its directory
   * @param gitUrl its remote
   * @param lockedAt when it was locked
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record ProjectLock(@JsonProperty("_id") @JsonAlias("id") String id, String slug,
      String gitUrl, Instant lockedAt) {}

  /**
   * A project cloned into the workspace.
   *
   * @param id the project's id
   * @param slug its directory
   * @param gitUrl its remote
   * @param clonedAt when it was cloned
   * @param lastSyncAt when a fetch last found (or, fast-forwarding, brought) its working tree
   *     up to date with the remote; a fetch that leaves it behind or that fails keeps the old
   *     time ({@code null}: never since the clone's own)
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record ProjectEntry(@JsonProperty("_id") @JsonAlias("id") String id, String slug,
      String gitUrl, Instant clonedAt, Instant lastSyncAt) {}

  /**
   * The drone's registration: written with {@code status} {@code starting} when the drone
   * starts, before it connects; the server's registration id and time once it is connected; the
   * status ({@code available}, {@code busy}) as it changes.
   *
   * @param id the registration's id the server assigned, or {@code null} before the first
   *     connection
   * @param status the drone's status: {@code starting}, {@code available} or {@code busy}
   * @param registeredAt when the server first registered this workspace's drone, or {@code null}
   *     before the first connection
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record Registration(@JsonProperty("_id") String id, String status,
      Instant registeredAt) {}

  /** This data with the drone's host name and workspace directory as they are now. */
  public WorkspaceData withHost(String hostname, String workspaceDir) {
    return new WorkspaceData(workspaceId, createdAt, hostname, workspaceDir, chatSession,
        lockedProject, projects, registration, mode);
  }
}
